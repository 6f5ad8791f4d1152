import AlplakesFormat
import Foundation
import Postgres

/// `alplakes_lakes`: the last good answers per lake, shared by every replica and kept across restarts.
public struct AlplakesStore: Sendable {
    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public func store(_ lake: AlplakesLake) async throws {
        _ = try await pool.execute(
            """
            INSERT INTO alplakes_lakes (lake, profile, point, fetched_at) VALUES ($1, $2, $3, $4)
            ON CONFLICT (lake) DO UPDATE SET profile = EXCLUDED.profile, point = EXCLUDED.point, fetched_at = EXCLUDED.fetched_at
            """,
            [lake.key, String(decoding: lake.profile.body, as: UTF8.self), String(decoding: lake.series.body, as: UTF8.self), lake.fetchedAt])
    }

    /// Every stored lake of `keys` (rows that no longer parse are skipped: they are replaced at the next fetch).
    public func lakes(_ keys: [String]) async throws -> [AlplakesLake] {
        let rows = try await pool.query("SELECT lake, profile, point, fetched_at FROM alplakes_lakes")
        return try rows.compactMap { row in
            let key = try row.decode(String.self, "lake")
            guard keys.contains(key),
                let profile = try? AlplakesProfile(parsing: Array(try row.decode(String.self, "profile").utf8)),
                let series = try? AlplakesSeries(parsing: Array(try row.decode(String.self, "point").utf8))
            else { return nil }
            return AlplakesLake(key: key, profile: profile, series: series, fetchedAt: try row.decode(Date.self, "fetched_at"))
        }
    }
}
