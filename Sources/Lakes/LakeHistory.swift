import LakesFormat
import Parsing

/// The level history served: for each lake (MeteoNews' name), one level per day, ascending — the last year, as
/// `/v1/water-levels` answers at most 366 days.
public struct LakeHistory: Sendable, Equatable {
    public var levels: [String: [LakeLevel]]
    /// Rows in PostgreSQL (all of the retention), and the newest day among them.
    public var storedRows: Int
    public var newestDay: CalendarDate?

    public init(levels: [String: [LakeLevel]] = [:], storedRows: Int = 0, newestDay: CalendarDate? = nil) {
        self.levels = levels
        self.storedRows = storedRows
        self.newestDay = newestDay
    }

    /// The days of `lake` from `first` to `last` (both included), ascending.
    public func levels(of lake: String, from first: CalendarDate, through last: CalendarDate) -> [LakeLevel] {
        (levels[lake] ?? []).filter { $0.day >= first && $0.day <= last }
    }
}
