import ReplayMatching

/// Gemini's recordings in a replay: one recorded answer to a made-up booking for whatever is posted — a replay holds
/// no user's text, and the demo imports that booking offline.
public struct GeminiReplay: ReplayMatcher {
    public init() {}

    public func handles(path: String, query: [String: String]) -> Bool { path.hasSuffix(":generateContent") }
}
