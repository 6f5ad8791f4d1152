import Feature
import HTTPServer
import OnDemand

/// Why an import gave no cruise, mapped to HTTP in one place (``httpError``), and named in
/// `pier_cruise_imports_total{outcome}` (``outcome``). None of its sentences holds the pasted text or the model's answer.
public enum CruiseImportFailure: Error, Sendable {
    /// The request itself (``CruiseImportRequest/Problem``): `400`, no upstream call.
    case badRequest(String)
    /// No Gemini key on this server: `503`, an hour.
    case notConfigured
    /// Gemini could not be asked, or failed: the engine's one refusal rule (`401` without a required App Attest token,
    /// `429` for this client's share, else `503`, each with `Retry-After`).
    case unavailable(OnDemandUnavailable)
    /// The model read the text and found no cruise booking in it: `422`.
    case noCruise
    /// Gemini declined to read the text (its safety filters): `422`, with Google's reason.
    case declined(String)
    /// Gemini answered something that is not a valid cruise, or was refused a request Pier made: `502`, with the reason.
    case invalidAnswer(String)

    /// The `outcome` label of `pier_cruise_imports_total`.
    public var outcome: String {
        switch self {
        case .badRequest: "bad_request"
        case .notConfigured: "not_configured"
        case .unavailable(let why): why.cause == .upstream ? "unavailable" : "refused"
        case .noCruise: "no_cruise"
        case .declined: "declined"
        case .invalidAnswer: "invalid_answer"
        }
    }

    public var httpError: HTTPError {
        switch self {
        case .badRequest(let reason): HTTPError(.badRequest, reason)
        case .notConfigured:
            HTTPError(.serviceUnavailable, Self.notConfiguredMessage, headers: ["Retry-After": "3600", "Cache-Control": "no-store"])
        case .unavailable(let why): why.httpError()
        case .noCruise: HTTPError(.unprocessableContent, "no cruise booking was found in the text")
        case .declined(let reason): HTTPError(.unprocessableContent, "Gemini declined to read this text (\(reason))")
        case .invalidAnswer(let reason): HTTPError(.badGateway, "Gemini's answer is not a valid cruise: \(reason)")
        }
    }

    static let notConfiguredMessage = "the cruise import is not configured on this server (no Gemini key)"
}
