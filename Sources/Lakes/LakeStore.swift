import Foundation
import Postgres

/// `lake_readings`: the latest good table, replaced as a whole in one transaction.
public struct LakeStore: Sendable {
    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    public func replace(with snapshot: LakeSnapshot) async throws {
        try await pool.transaction { connection in
            _ = try connection.execute("DELETE FROM lake_readings")
            try connection.insert(
                "INSERT INTO lake_readings (lake_name, position, temperature_c, water_level, scraped_at) VALUES",
                row: "($1, $2, $3, $4, $5)",
                rows: snapshot.readings.enumerated().map {
                    [$0.element.name, $0.offset, $0.element.temperature, $0.element.waterLevel, snapshot.scrapedAt]
                })
        }
    }

    /// The stored table, or `nil` when nothing was stored yet.
    public func snapshot() async throws -> LakeSnapshot? {
        let rows = try await pool.query(
            "SELECT lake_name, temperature_c, water_level, scraped_at FROM lake_readings ORDER BY position")
        guard let first = rows.first else { return nil }
        return LakeSnapshot(
            readings: try rows.map { row in
                LakeReading(
                    name: try row.decode(String.self, "lake_name"), temperature: try row.decode(Double?.self, "temperature_c"),
                    waterLevel: try row.decode(String?.self, "water_level"))
            },
            scrapedAt: try first.decode(Date.self, "scraped_at"))
    }
}
