import ArgumentParser
import Feature
import FeatureCommands
import Foundation
import LakesFormat
import Parsing
import Scheduling

/// Loads a CSV export of the Next Wave app's lake-level table (`lake_name,date,level_m`) into `lake_levels`: every row
/// is checked first and nothing is written unless all are good; a day Pier scraped itself is never replaced.
struct ImportWaterLevelsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "water-levels",
        abstract: "Import lake levels from a CSV export of the Next Wave app's table (lake_name,date,level_m).",
        discussion: """
            Lake names may be the app's ("Lac Léman") or MeteoNews' ("Genfersee"), in any case; once Pier has scraped \
            the lake table, a name it does not list is an error. Bad rows are listed with their line numbers and \
            nothing is imported. Environment: DATABASE_URL (required; or DATABASE_URL_FILE).
            """)

    @Argument(help: "The CSV file (a header row naming lake_name, date and level_m; other columns are ignored).")
    var file: String

    func run() throws {
        guard let text = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read \(file)") }
        let file = file
        // Running `pier serve` processes reload the lakes (and so the history) from PostgreSQL.
        try Commands.current.withDatabase(announcing: ChangeTopic(LakesFeature.source)) { pool in
            try await Self.importLevels(Array(text), from: file, into: LakeStore(pool: pool))
        }
    }

    private static func importLevels(_ text: [UInt8], from file: String, into store: LakeStore) async throws {
        let known = try await store.snapshot()?.readings.map(\.name) ?? []
        let today = CalendarDate(Date(), in: LakeService.Configuration().timeZone)
        let (rows, found) = WaterLevelCSV.read(text)
        var problems = found
        var levels: [(lake: String, level: LakeLevel)] = []
        var seen: [String: Int] = [:]
        for row in rows {
            let lake = known.isEmpty ? LakeNames.meteoNewsName(row.lake) : LakeNames.meteoNewsName(row.lake, among: known)
            guard let lake else {
                problems.append(.init(line: row.line, reason: "no lake named \(row.lake) (MeteoNews lists \(known.count) lakes; see /api/water-temp)"))
                continue
            }
            guard row.level.day <= today.adding(days: 1) else {
                problems.append(.init(line: row.line, reason: "date \(row.level.day) lies in the future"))
                continue
            }
            let key = "\(lake)|\(row.level.day)"
            if let earlier = seen[key] {
                problems.append(.init(line: row.line, reason: "\(lake) on \(row.level.day) is on line \(earlier) already"))
                continue
            }
            seen[key] = row.line
            levels.append((lake, row.level))
        }
        guard problems.isEmpty else {
            let sorted = problems.sorted { $0.line < $1.line }
            for problem in sorted.prefix(100) { printError("\(file): \(problem)") }
            if sorted.count > 100 { printError("\(file): … and \(sorted.count - 100) more") }
            printError("\(file): nothing imported (\(sorted.count) bad rows of \(rows.count + found.count))")
            throw ExitCode.failure
        }
        let written = try await store.importLevels(levels)
        let lakes = Set(levels.map(\.lake)).count
        print("\(file): imported \(written) of \(levels.count) rows for \(lakes) lakes (\(levels.count - written) days Pier scraped itself were kept)")
    }

    private static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
