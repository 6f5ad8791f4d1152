import Foundation
import LakesFormat
import MeteoNewsFormat
import Parsing
import Postgres

/// `lake_readings`: the latest good table, replaced as a whole in one transaction; and `lake_levels`, each lake's
/// level per day, written with it.
public struct LakeStore: Sendable {
    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// The level history as a relation another feature's query may read (Next Wave's `lake_water_levels`): `lake`
    /// (MeteoNews' name), `day` (a `date`, Europe/Zurich), `level_m` (metres) and `read_at` (when it was scraped; null
    /// for an imported day). Read-only: only Lakes writes the history.
    public static let levelHistory = "(SELECT lake, day, level_m, read_at FROM lake_levels)"

    /// Replaces the table and records each lake's level as its reading for `day` (the scrape's Zurich date): a
    /// newer scrape of the day replaces an older one and an imported row; levels older than `retentionDays` go.
    public func replace(with snapshot: LakeSnapshot, day: CalendarDate, retentionDays: Int) async throws {
        let levels = snapshot.readings.compactMap { reading in reading.waterLevel.flatMap(LakeLevel.metres).map { (reading.name, $0) } }
        try await pool.transaction { connection in
            _ = try connection.execute("DELETE FROM lake_readings")
            try connection.insert(
                "INSERT INTO lake_readings (lake_name, position, temperature_c, water_level, scraped_at) VALUES",
                row: "($1, $2, $3, $4, $5)",
                rows: snapshot.readings.enumerated().map {
                    [$0.element.name, $0.offset, $0.element.temperature, $0.element.waterLevel, snapshot.scrapedAt]
                })
            for (lake, metres) in levels {
                _ = try connection.execute(
                    """
                    INSERT INTO lake_levels (lake, day, level_m, read_at, source) VALUES ($1, $2::date, $3, $4, 'scraped')
                    ON CONFLICT (lake, day) DO UPDATE SET level_m = EXCLUDED.level_m, read_at = EXCLUDED.read_at, source = 'scraped'
                    WHERE lake_levels.source = 'imported' OR lake_levels.read_at <= EXCLUDED.read_at
                    """, [lake, day.description, metres, snapshot.scrapedAt])
            }
            _ = try connection.execute("DELETE FROM lake_levels WHERE day < $1::date - $2::integer", [day.description, retentionDays])
        }
    }

    /// Each lake's levels from `first` on, ascending, with the number of rows kept and the newest day.
    public func history(from first: CalendarDate) async throws -> LakeHistory {
        let rows = try await pool.query("SELECT lake, day::text AS day, level_m FROM lake_levels WHERE day >= $1::date ORDER BY lake, day", [first.description])
        var levels: [String: [LakeLevel]] = [:]
        for row in rows {
            guard let day = CalendarDate(try row.decode(String.self, "day")) else { continue }
            levels[try row.decode(String.self, "lake"), default: []].append(LakeLevel(day: day, metres: try row.decode(Double.self, "level_m")))
        }
        let summary = try await pool.query("SELECT count(*) AS n, max(day)::text AS newest FROM lake_levels").first
        return LakeHistory(
            levels: levels, storedRows: try summary?.decode(Int.self, "n") ?? 0,
            newestDay: try summary?.decode(String?.self, "newest").flatMap(CalendarDate.init))
    }

    /// Adds imported levels (`pier import water-levels`) in one transaction: a day Pier scraped itself is kept as
    /// it is, an imported one is replaced. Returns how many rows were written.
    public func importLevels(_ levels: [(lake: String, level: LakeLevel)]) async throws -> Int {
        try await pool.transaction { connection in
            var written = 0
            for (lake, level) in levels {
                written += try connection.execute(
                    """
                    INSERT INTO lake_levels (lake, day, level_m, read_at, source) VALUES ($1, $2::date, $3, NULL, 'imported')
                    ON CONFLICT (lake, day) DO UPDATE SET level_m = EXCLUDED.level_m WHERE lake_levels.source = 'imported'
                    """, [lake, level.day.description, level.metres])
            }
            return written
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
