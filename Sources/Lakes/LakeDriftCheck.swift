import LakesFormat
import MeteoNewsFormat
/// Decides whether a scraped lake table looks like the real thing before it may replace stored data.
public enum LakeDriftCheck {
    /// A table with fewer than this fraction of the stored lakes is suspect (a partial or changed page).
    public static let minimumRetainedFraction = 0.5

    /// The reason the scrape is suspect, or `nil` when it may be stored.
    /// - Parameter previousCount: lakes stored before (0 when none).
    public static func problem(with readings: [LakeReading], previousCount: Int) -> String? {
        guard !readings.isEmpty else { return "the page has no parsable lake row: the table layout may have changed" }
        if previousCount > 0, Double(readings.count) < Double(previousCount) * minimumRetainedFraction {
            return "only \(readings.count) lakes where \(previousCount) were stored: fewer than half"
        }
        return nil
    }
}
