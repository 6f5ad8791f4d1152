import Foundation
import ReplayMatching

/// Wikipedia's recordings in a replay: a search (`search`) gets its own recording, else the one recorded for any
/// other text (`search=*`); a summary is its title's recording.
public struct WikipediaReplay: ReplayMatcher {
    public init() {}

    public func handles(path: String, query: [String: String]) -> Bool { path.hasSuffix("/w/api.php") }

    public func pick(_ query: [String: String], from entries: [ReplayEntry], now: Date) -> ReplayEntry? {
        entries.recorded(for: "search", in: query)
    }
}
