import Foundation
import LakesFormat
import Parsing

/// The demo's level history (`pier serve --demo`): the recordings hold one lake table, so the history an app's
/// analytics screen shows comes from `<demo>/lake-levels/levels.csv` (written by scripts/demo/lakes.py), imported with
/// its days moved so that the last is yesterday — today is the recorded table's.
enum DemoLevels {
    static func seed(from directory: String, into store: LakeStore, today: CalendarDate) async throws {
        guard let text = FileManager.default.contents(atPath: directory + "/lake-levels/levels.csv") else { return }
        let (rows, problems) = WaterLevelCSV.read(Array(text))
        guard problems.isEmpty, let newest = rows.map(\.level.day).max() else { return }
        let shift = today.adding(days: -1).dayNumber - newest.dayNumber
        _ = try await store.importLevels(rows.map { ($0.lake, LakeLevel(day: $0.level.day.adding(days: shift), metres: $0.level.metres)) })
    }
}
