import Fetching
import Foundation
import HTTPServer

/// `/v1/weather` answers by exact point, each valid while its stamp (station index, the cell's forecast, the
/// local date) is unchanged and its station's observation still counts.
final class BodyCache: Sendable {
    struct Stamp: Equatable {
        var stations: Int
        var fetchedAt: Date
        var today: CalendarDate
        var stale: Bool
    }

    private struct Entry {
        var stamp: Stamp
        var until: Date
        var response: CachedResponse
    }

    private let entries = BoundedCache<String, Entry>(capacity: 50_000)

    func response(for key: String, stamp: Stamp, now: Date) -> CachedResponse? {
        guard let entry = entries[key], entry.stamp == stamp, now < entry.until else { return nil }
        return entry.response
    }

    func store(_ response: CachedResponse, for key: String, stamp: Stamp, until: Date) {
        entries.set(Entry(stamp: stamp, until: until, response: response), for: key)
    }
}
