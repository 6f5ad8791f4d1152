import Foundation
import Postgres
import Synchronization

/// A key's requests per day, counted in PostgreSQL (`upstream_quota`) so that every replica draws on one
/// count and a restart does not reset it. Each call takes one request with a single conditional upsert: the
/// count never passes the limit, whatever the number of replicas asking at once.
///
/// Without the database no request is granted: a key blocked for overdrawing hurts every user for longer
/// than an outage of the database does (the routes serve what they hold meanwhile).
public final class DailyQuota: Sendable {
    public enum Decision: Sendable, Equatable {
        case granted
        /// The day's requests are spent (or the count could not be read); `retryAfter` seconds until the next day.
        case spent(retryAfter: Int)
    }

    /// What `/health` shows.
    public struct Snapshot: Sendable, Equatable {
        public var day: CalendarDate
        public var limit: Int
        /// `nil` before this process has counted anything today.
        public var used: Int?

        /// `{"per_day":…,"used_today":…,"left_today":…}` (`null` when not known yet).
        public var json: String {
            let used = used.map(String.init) ?? "null"
            let left = self.used.map { String(max(0, limit - $0)) } ?? "null"
            return "{\"per_day\":\(limit),\"used_today\":\(used),\"left_today\":\(left)}"
        }
    }

    /// Where most upstreams' day starts (OpenWeather's, Geoapify's).
    public static let utc = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current

    public let upstream: String
    public let limit: Int
    private let timeZone: TimeZone
    private let pool: PostgresPool
    private let known = Mutex<(day: CalendarDate, used: Int)?>(nil)

    /// - Parameters:
    ///   - upstream: the row's name (`openweather`).
    ///   - limit: requests per day; `0` grants none.
    ///   - timeZone: where the upstream's day starts (UTC for OpenWeather).
    public init(upstream: String, limit: Int, timeZone: TimeZone = DailyQuota.utc, pool: PostgresPool) {
        self.upstream = upstream
        self.limit = max(0, limit)
        self.timeZone = timeZone
        self.pool = pool
    }

    /// Takes `units` of today's quota (one request; Geoapify counts credits, several per call): all of them
    /// or none.
    public func take(units: Int = 1, now: Date = Date()) async -> Decision {
        let day = CalendarDate(now, in: timeZone)
        let retryAfter = max(1, Int(day.adding(days: 1).start(in: timeZone).timeIntervalSince(now).rounded(.up)))
        let units = max(1, units)
        guard units <= limit else { return .spent(retryAfter: retryAfter) }
        do {
            let rows = try await pool.query(
                """
                INSERT INTO upstream_quota (upstream, day, used) VALUES ($1, $2::date, $4)
                ON CONFLICT (upstream, day) DO UPDATE SET used = upstream_quota.used + $4 WHERE upstream_quota.used + $4 <= $3
                RETURNING used
                """, [upstream, day.description, limit, units])
            guard let used = try rows.first?.decode(Int.self, "used") else {
                // Refused: fewer than `units` are left (none, when one was asked).
                if units == 1 { known.withLock { $0 = (day, limit) } }
                return .spent(retryAfter: retryAfter)
            }
            known.withLock { $0 = (day, used) }
            if used == units {
                // The first request of a day: forget counts older than a few weeks.
                _ = try? await pool.execute("DELETE FROM upstream_quota WHERE upstream = $1 AND day < $2::date - 35", [upstream, day.description])
            }
            return .granted
        } catch {
            return .spent(retryAfter: 60)
        }
    }

    /// Reads today's count (at start-up, so `/health` knows it before the first request).
    public func load(now: Date = Date()) async throws {
        let day = CalendarDate(now, in: timeZone)
        let rows = try await pool.query("SELECT used FROM upstream_quota WHERE upstream = $1 AND day = $2::date", [upstream, day.description])
        let used = try rows.first?.decode(Int.self, "used") ?? 0
        known.withLock { $0 = (day, used) }
    }

    public func snapshot(now: Date = Date()) -> Snapshot {
        let day = CalendarDate(now, in: timeZone)
        let used = known.withLock { known in known.flatMap { $0.day == day ? $0.used : 0 } }
        return Snapshot(day: day, limit: limit, used: used)
    }
}
