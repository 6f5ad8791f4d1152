import CruiseImportFormat
import Foundation
import Parsing
import UpstreamHTTP

/// Gemini's `generateContent` (`POST {base}/models/{model}:generateContent`) asked for one import: the body
/// ``GeminiRequest`` makes, the key in the `x-goog-api-key` header — never in the URL, which errors and logs show. The
/// exchange is never captured (``UpstreamClient/post(_:body:headers:accepting:capturing:)``): both ways it carries a
/// user's booking.
public struct GeminiClient: Sendable {
    /// `PIER_GEMINI_URL`'s default.
    public static let defaultURL = "https://generativelanguage.googleapis.com/v1beta"
    /// `PIER_GEMINI_MODEL`'s default: the model Google names as `gemini-2.5-flash`'s replacement, with no shutdown date
    /// announced (November 2026). An operator changes it without an app release.
    public static let defaultModel = "gemini-3.5-flash-lite"

    /// What one call came to.
    public enum Call: Equatable, Sendable {
        /// Gemini's answer: the model's text, a refusal, or Google's error envelope (with the `RetryInfo` delay a `429`
        /// carries, in seconds).
        case answered(GeminiAnswer, retryDelay: Int?)
        /// No answer: a timeout, a transport error, a status Google does not explain.
        case unreachable(UpstreamError)
        /// An answer that is not Gemini's shape: why (``GeminiAnswer/Garbage``, never the body, which may hold the booking).
        case garbage(String)
    }

    let baseURL: String
    let model: String
    let key: String
    let client: UpstreamClient

    public init(baseURL: String = Self.defaultURL, model: String = Self.defaultModel, key: String, client: UpstreamClient) {
        self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
        self.model = model
        self.key = key
        self.client = client
    }

    var url: String { "\(baseURL)/models/\(model):generateContent" }

    /// Google explains these in its error envelope.
    static let explained: Set<Int> = [400, 401, 403, 404, 429, 500, 503, 504]

    /// Asks the model for the cruise in `text`.
    public func generate(_ text: String) async -> Call {
        let response: UpstreamResponse
        do {
            response = try await client.post(
                url, body: Array(GeminiRequest.body(for: text).utf8), headers: ["Content-Type": "application/json"], credentials: ["x-goog-api-key": key],
                accepting: Self.explained, capturing: false)
        } catch {
            return .unreachable(error)
        }
        do {
            let answer = try GeminiAnswer(response.body)
            if case .error = answer { return .answered(answer, retryDelay: response.retryAfter() ?? Self.retryDelay(in: response.body)) }
            guard response.status / 100 == 2 else { return .garbage("HTTP \(response.status) without Google's error envelope") }
            return .answered(answer, retryDelay: nil)
        } catch {
            return .garbage("HTTP \(response.status), \(error)")
        }
    }

    /// The `retryDelay` of a `google.rpc.RetryInfo` among an error's `details` (`"37s"`), in whole seconds.
    static func retryDelay(in body: [UInt8]) -> Int? {
        guard let root = try? JSONScanner.parse(body), let details = root["error"]?["details"]?.elements else { return nil }
        for detail in details {
            guard let delay = detail["retryDelay"]?.string, delay.hasSuffix("s"), let seconds = Double(delay.dropLast()), seconds.isFinite, seconds >= 0
            else { continue }
            return Int(seconds.rounded(.up))
        }
        return nil
    }
}
