import Foundation
import Parsing
import Postgres

/// A count per key and UTC day kept in PostgreSQL, so that every replica counts the same: how many devices a network
/// registered today (App Attest's attestations, push registrations by clients without a device's proof). Taken inside
/// the caller's transaction, so a write that is refused or fails counts nothing; rows older than yesterday are deleted
/// as new ones are taken, so the table holds two days of the networks that registered.
public struct DailyCounter: Sendable {
    /// Whose counts these are among the table's (`app-attest-registrations`, `push-registrations`).
    public let scope: String
    /// The most `key` may take in a day (`0`: none).
    public let limit: Int

    public init(scope: String, limit: Int) {
        self.scope = scope
        self.limit = limit
    }

    /// The day counted for `now` (UTC: one day for every replica whatever its zone).
    public static func day(_ now: Date) -> CalendarDate {
        CalendarDate(now, in: DailyQuota.utc)
    }

    /// Seconds until the next day's counts begin.
    public static func secondsToNextDay(_ now: Date) -> Int {
        DailyQuota.secondsToNextDay(day(now), now: now)
    }

    /// How many `key` took on `day`.
    public func count(_ key: String, day: CalendarDate, in pool: PostgresPool) async throws -> Int {
        let rows = try await pool.query(
            "SELECT count FROM daily_counts WHERE scope = $1 AND key = $2 AND day = $3::date", [scope, key, day.description])
        return try rows.first?.decode(Int.self, "count") ?? 0
    }

    /// One more for `key` on `day`, on `connection` (the caller's transaction); `false`, counting nothing, when `key`
    /// has taken ``limit`` already.
    public func take(_ key: String, day: CalendarDate, on connection: PostgresConnection) throws -> Bool {
        guard limit > 0 else { return false }
        _ = try connection.execute("DELETE FROM daily_counts WHERE scope = $1 AND day < $2::date - 1", [scope, day.description])
        let counted = try connection.execute(
            """
            INSERT INTO daily_counts AS c (scope, key, day, count) VALUES ($1, $2, $3::date, 1)
            ON CONFLICT (scope, key, day) DO UPDATE SET count = c.count + 1 WHERE c.count < $4
            """, [scope, key, day.description, limit])
        return counted == 1
    }
}
