import Basics
import Foundation
import Parsing
import Postgres
import Synchronization

/// A key's requests per day, counted in PostgreSQL (`upstream_quota`) so that every replica draws on one
/// count and a restart does not reset it, and split by ``DailyShares``: each client group a call counts against
/// has a share of the day (`upstream_share`), and a reserve is kept for refreshing answers more than one client
/// asked for. Each call takes its units with one statement (`pier_take_quota`) that never lets the day or a
/// group pass its limit, whatever the number of replicas asking at once.
///
/// What this process learnt of today's groups is kept in memory, so that a group known to have spent its share
/// is refused before any database work (``spentGroup(_:units:now:)``).
///
/// Without the database no request is granted: a key blocked for overdrawing hurts every user for longer
/// than an outage of the database does (the routes serve what they hold meanwhile).
public final class DailyQuota: Sendable {
    public enum Decision: Sendable, Equatable {
        case granted
        /// The day's requests are spent — those outside the reserve when `reserved` — and `retryAfter` seconds
        /// until the next day.
        case spent(retryAfter: Int, reserved: Bool = false)
        /// The group at position `by` in the call's groups has spent its share of the day.
        case shareSpent(by: Int, retryAfter: Int)
        /// The count could not be read or written: nothing was taken.
        case unknown
    }

    /// What `/health` shows.
    public struct Snapshot: Sendable, Equatable, Encodable {
        public var day: CalendarDate
        public var limit: Int
        /// `nil` before this process has counted anything today.
        public var used: Int?
        /// Units kept for answers more than one client asked for.
        public var reserve: Int = 0

        enum CodingKeys: String, CodingKey {
            case limit = "per_day", used = "used_today", left = "left_today", reserve
        }

        /// `{"per_day":…,"used_today":…,"left_today":…,"reserve":…}` (`null` when not known yet).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(limit, forKey: .limit)
            try container.encodeIfPresent(used, forKey: .used)
            try container.encodeIfPresent(used.map { max(0, limit - $0) }, forKey: .left)
            try container.encode(reserve, forKey: .reserve)
        }
    }

    private struct Known {
        var day: CalendarDate
        var used: Int?
        /// Today's count of each group this process has seen spend (bounded: ``groupsKept``).
        var groups: [ClientGroup: Int] = [:]
    }

    /// Where most upstreams' day starts (OpenWeather's, Geoapify's).
    public static let utc = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? .current
    /// Groups remembered in memory per day; past it only those that spent their share are kept (PostgreSQL
    /// still decides for the others).
    static let groupsKept = 50_000

    public let upstream: String
    public let limit: Int
    public let shares: DailyShares
    private let timeZone: TimeZone
    private let pool: PostgresPool
    private let known: Mutex<Known?> = Mutex(nil)
    /// The upstream's current day and when it ends: worked out by the calendar once a day, not on every refusal
    /// (a flood's refusals ask ``spentGroup(_:units:now:)`` thousands of times a second).
    private let today: Mutex<(day: CalendarDate, start: Date, end: Date)?> = Mutex(nil)

    /// - Parameters:
    ///   - upstream: the row's name (`openweather`).
    ///   - limit: requests per day; `0` grants none.
    ///   - timeZone: where the upstream's day starts (UTC for OpenWeather).
    public init(upstream: String, limit: Int, timeZone: TimeZone = DailyQuota.utc, shares: DailyShares = DailyShares(), pool: PostgresPool) {
        self.upstream = upstream
        self.limit = max(0, limit)
        self.timeZone = timeZone
        self.shares = shares
        self.pool = pool
    }

    /// Takes `units` of today's quota (one request; Geoapify counts credits, several per call): all of them
    /// or none. `groups` are the client's (none: a call on nobody's behalf); `reserved` lets the call use the
    /// reserve (an answer more than one client asked for).
    public func take(units: Int = 1, groups: [ClientGroup] = [], reserved: Bool = true, now: Date = Date()) async -> Decision {
        let (day, retryAfter) = self.day(at: now)
        let units = max(1, units)
        let dayLimit = reserved ? limit : shares.unreserved(day: limit)
        guard units <= dayLimit else { return .spent(retryAfter: retryAfter, reserved: !reserved) }
        let groupLimits = groups.map { shares.limit(of: $0.kind, day: limit, units: units) }
        do {
            let rows = try await pool.query(
                "SELECT granted, day_used, spent_group, group_used FROM pier_take_quota($1, $2::date, $3, $4, $5::text[], $6::integer[])",
                [upstream, day.description, units, dayLimit, Self.array(groups.map(\.description)), Self.array(groupLimits.map(String.init))])
            guard let row = rows.first, let granted = try row.decode(Bool?.self, "granted"), let used = try row.decode(Int?.self, "day_used")
            else { return .unknown }
            let counts = Self.integers(try row.decode(String?.self, "group_used") ?? "{}")
            let spentGroup = try row.decode(Int?.self, "spent_group").map { $0 - 1 }
            learn(day: day, used: used, groups: groups, counts: counts, spent: spentGroup.map { ($0, groupLimits[$0]) })
            if granted {
                if used == units {
                    // The first request of a day: forget counts older than a few weeks, and yesterday's groups.
                    _ = try? await pool.execute("DELETE FROM upstream_quota WHERE upstream = $1 AND day < $2::date - 35", [upstream, day.description])
                    _ = try? await pool.execute("DELETE FROM upstream_share WHERE upstream = $1 AND day < $2::date - 1", [upstream, day.description])
                }
                return .granted
            }
            if let spentGroup { return .shareSpent(by: spentGroup, retryAfter: retryAfter) }
            return .spent(retryAfter: retryAfter, reserved: !reserved && dayLimit < limit)
        } catch {
            return .unknown
        }
    }

    /// The position of a group among `groups` this process knows to have spent its share of today (taking
    /// `units` more would pass it), with the seconds until the next day; `nil` when none is known to have.
    public func spentGroup(_ groups: [ClientGroup], units: Int = 1, now: Date = Date()) -> (index: Int, retryAfter: Int)? {
        let (day, retryAfter) = self.day(at: now)
        let index: Int? = known.withLock { known in
            guard let known, known.day == day else { return nil }
            return groups.firstIndex { group in
                guard let used = known.groups[group] else { return false }
                return used + max(1, units) > shares.limit(of: group.kind, day: limit, units: max(1, units))
            }
        }
        return index.map { ($0, retryAfter) }
    }

    /// The upstream's day at `now`, and the seconds until the next one starts (at least 1: a `Retry-After`).
    private func day(at now: Date) -> (CalendarDate, secondsLeft: Int) {
        let window = today.withLock { held in
            if let held, held.start <= now, now < held.end { return held }
            let day = CalendarDate(now, in: timeZone)
            let window = (day: day, start: day.start(in: timeZone), end: day.adding(days: 1).start(in: timeZone))
            held = window
            return window
        }
        return (window.day, max(1, Int(window.end.timeIntervalSince(now).rounded(.up))))
    }

    /// Reads today's count (at start-up, so `/health` knows it before the first request).
    public func load(now: Date = Date()) async throws {
        let (day, _) = self.day(at: now)
        let rows = try await pool.query("SELECT used FROM upstream_quota WHERE upstream = $1 AND day = $2::date", [upstream, day.description])
        let used = try rows.first?.decode(Int.self, "used") ?? 0
        known.withLock { $0 = Known(day: day, used: used) }
    }

    public func snapshot(now: Date = Date()) -> Snapshot {
        let (day, _) = self.day(at: now)
        let used = known.withLock { known in known.map { $0.day == day ? $0.used : 0 } ?? nil }
        return Snapshot(day: day, limit: limit, used: used, reserve: limit - shares.unreserved(day: limit))
    }

    /// When the upstream's day that holds `now` ends (its next midnight in its own time zone).
    public func dayEnds(now: Date = Date()) -> Date {
        day(at: now).0.adding(days: 1).start(in: timeZone)
    }

    private func learn(day: CalendarDate, used: Int, groups: [ClientGroup], counts: [Int], spent: (index: Int, limit: Int)?) {
        known.withLock { known in
            var today = known.flatMap { $0.day == day ? $0 : nil } ?? Known(day: day)
            known = nil  // `today` holds the only copy: no copy of the groups on write
            today.used = used
            for (group, count) in zip(groups, counts) { today.groups[group] = count }
            // Refused: the group's count plus this call passes its limit; remember it as spent.
            if let spent, spent.index < groups.count { today.groups[groups[spent.index]] = spent.limit }
            if today.groups.count > Self.groupsKept {
                today.groups = today.groups.filter { $0.value >= shares.limit(of: $0.key.kind, day: limit, units: 1) }
            }
            known = today
        }
    }

    /// Seconds from `now` until the day after `day` starts in `timeZone`, at least 1: a `Retry-After` for a count of
    /// the day.
    public static func secondsToNextDay(_ day: CalendarDate, now: Date, in timeZone: TimeZone = utc) -> Int {
        max(1, Int(day.adding(days: 1).start(in: timeZone).timeIntervalSince(now).rounded(.up)))
    }

    /// A PostgreSQL array literal of `elements` (CIDR text and numbers: quoted, nothing to escape).
    static func array(_ elements: [String]) -> String {
        "{" + elements.map { "\"\($0)\"" }.joined(separator: ",") + "}"
    }

    /// The integers of a PostgreSQL array's text (`{1,2,3}`).
    static func integers(_ text: String) -> [Int] {
        text.trimmingCharacters(in: CharacterSet(charactersIn: "{}")).split(separator: ",").compactMap { Int($0) }
    }
}
