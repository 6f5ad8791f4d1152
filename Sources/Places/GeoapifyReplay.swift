import Foundation
import ReplayMatching

/// Geoapify's recordings in a replay: a geocoding search (`text`) gets its own recording, else the one recorded
/// for any other text (`text=*`); places answer with the recording of their path.
public struct GeoapifyReplay: ReplayMatcher {
    public init() {}

    public func handles(path: String, query: [String: String]) -> Bool { path.hasSuffix("/geocode/search") || path.hasSuffix("/v2/places") }

    public func pick(_ query: [String: String], from entries: [ReplayEntry], now: Date) -> ReplayEntry? {
        entries.recorded(for: "text", in: query)
    }
}
