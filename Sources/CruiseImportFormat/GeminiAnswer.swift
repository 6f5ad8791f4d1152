import Parsing

/// What Gemini's `generateContent` answered, read strictly (``JSONScanner``): the first candidate's text (with a
/// response schema, JSON to be read again), why it stopped, and the tokens it cost — or Google's error envelope.
/// Anything else is upstream garbage.
public enum GeminiAnswer: Equatable, Sendable {
    /// The model's text (`candidates[0].content.parts[*].text`, joined) and the tokens spent.
    case text(String, tokens: Tokens)
    /// Gemini would not read the text: the prompt was blocked (`promptFeedback.blockReason`) or the candidate stopped
    /// for its content (`SAFETY`, `RECITATION`, …).
    case refused(reason: String, tokens: Tokens)
    /// The answer stopped before its end for Gemini's own reasons (``cutReasons``): its failure, not the text's.
    case cut(reason: String, tokens: Tokens)
    /// Google's `{"error": {"code", "message", "status", "details"}}`: the code, the status and the `reason` of its
    /// `google.rpc.ErrorInfo` detail (`API_KEY_INVALID`), if any. Its `message` is not kept: Google's words may quote
    /// the request, and the request is a booking (nothing of it may reach a log).
    case error(code: Int, status: String, reason: String?)

    public struct Tokens: Equatable, Sendable {
        public var prompt: Int
        public var answer: Int

        public init(prompt: Int, answer: Int) {
            self.prompt = prompt
            self.answer = answer
        }
    }

    /// Why an answer is not Gemini's shape.
    public struct Garbage: Error, Equatable, Sendable, CustomStringConvertible {
        public var reason: String
        public var description: String { "not a Gemini answer: \(reason)" }
    }

    /// Finish reasons that cut an answer short whatever the text held.
    static let cutReasons: Set<String> = ["MAX_TOKENS", "OTHER", "MALFORMED_FUNCTION_CALL"]

    /// An `ErrorInfo` reason is an upper-case word (`API_KEY_INVALID`); anything else in its place is cut to one, so a
    /// reason can be logged.
    private static func word(_ text: String) -> String {
        String(text.unicodeScalars.prefix { $0.properties.isUppercase || $0 == "_" || ("0"..."9").contains($0) }.prefix(64))
    }

    /// Longer answers are refused unread: a cruise of 100 ports is well under 64 KB of JSON.
    public static let maximumBytes = 1 << 20

    public init(_ body: [UInt8]) throws(Garbage) {
        guard body.count <= Self.maximumBytes else { throw Garbage(reason: "over \(Self.maximumBytes) bytes") }
        let root: JSONNode
        do { root = try JSONScanner.parse(body) } catch { throw Garbage(reason: error.description) }
        guard root.isObject else { throw Garbage(reason: "not an object") }
        if let error = root["error"] {
            guard let code = error["code"]?.integer(in: body), let status = error["status"]?.string else {
                throw Garbage(reason: "an error without code or status")
            }
            let info = error["details"]?.elements?.first { $0["@type"]?.string?.hasSuffix("google.rpc.ErrorInfo") == true }
            self = .error(code: code, status: status, reason: info?["reason"]?.string.map(Self.word))
            return
        }
        let usage = root["usageMetadata"]
        let tokens = Tokens(
            prompt: usage?["promptTokenCount"]?.integer(in: body) ?? 0, answer: usage?["candidatesTokenCount"]?.integer(in: body) ?? 0)
        if let blocked = root["promptFeedback"]?["blockReason"]?.string {
            self = .refused(reason: "prompt blocked: \(blocked)", tokens: tokens)
            return
        }
        guard let candidate = root["candidates"]?.elements?.first else { throw Garbage(reason: "no candidate") }
        let finish = candidate["finishReason"]?.string ?? "STOP"
        guard finish == "STOP" else {
            self = Self.cutReasons.contains(finish) ? .cut(reason: "stopped: \(finish)", tokens: tokens) : .refused(reason: "stopped: \(finish)", tokens: tokens)
            return
        }
        guard let parts = candidate["content"]?["parts"]?.elements, !parts.isEmpty else { throw Garbage(reason: "a candidate without parts") }
        var text = ""
        for part in parts {
            guard let piece = part["text"]?.string else { throw Garbage(reason: "a part without text") }
            text += piece
        }
        self = .text(text, tokens: tokens)
    }
}
