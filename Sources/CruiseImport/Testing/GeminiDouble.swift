import Foundation
import HTTPServer

/// Gemini's generateContent: the answer to the made-up river cruise for any text, when the key is in the
/// `x-goog-api-key` header (a key anywhere else, or another key, is Google's `400 API_KEY_INVALID`); variants
/// `fenced`, `blocked`, `max-tokens`, `impossible-dates`, `no-cruise`, `failed-precondition`, `key-invalid`,
/// `invalid-argument` (an error whose message quotes the booking); `429`,
/// `404` and `503` with Google's error documents.
struct GeminiDouble: UpstreamDouble {
    let upstream = FixtureUpstream.Upstream.gemini
    let paths = ["/v1beta/models/{call}"]
    static let key = "double-gemini-key"
    func settings(of server: FixtureUpstream) -> [String: String] { ["PIER_GEMINI_URL": server.geminiURL] }
    let unlimited = [
        "PIER_GEMINI_API_KEY": Self.key, "PIER_GEMINI_REQUESTS_PER_MINUTE": "1000000", "PIER_GEMINI_BURST": "100000",
        "PIER_GEMINI_CLIENT_SHARE": "1", "PIER_GEMINI_REQUESTS_PER_DAY": "100000000",
    ]
    private let answers: [String: [UInt8]]
    private let errors: [Int: [UInt8]]

    init() throws {
        var answers: [String: [UInt8]] = [:]
        for name in ["river-cruise", "fenced", "blocked", "max-tokens", "impossible-dates", "no-cruise"] {
            answers[name] = try Fixtures.bytes("gemini", "answer-\(name).json")
        }
        answers["failed-precondition"] = try Fixtures.bytes("gemini", "400-failed-precondition.json")
        answers["key-invalid"] = try Fixtures.bytes("gemini", "400-api-key.json")
        answers["invalid-argument"] = try Fixtures.bytes("gemini", "400-invalid-argument.json")
        self.answers = answers
        errors = [429: try Fixtures.bytes("gemini", "429.json"), 404: try Fixtures.bytes("gemini", "404.json"), 503: try Fixtures.bytes("gemini", "503.json")]
    }

    func answer(_ request: FixtureUpstream.Request) -> HTTPResponse {
        answer(request, variant: "river-cruise") ?? .text("", status: .internalServerError)
    }

    func answer(_ request: FixtureUpstream.Request, variant: String) -> HTTPResponse? {
        guard request.method == "POST", request.path.hasSuffix(":generateContent") else {
            return Self.json(Array(#"{"error":{"code":404,"message":"not found","status":"NOT_FOUND"}}"#.utf8), status: .notFound)
        }
        guard request.headers.first(where: { $0.key.lowercased() == "x-goog-api-key" })?.value == Self.key else {
            return Self.json(answers["key-invalid"] ?? [], status: .badRequest)
        }
        guard let body = answers[variant] else { return nil }
        let status: HTTPStatus = ["failed-precondition", "key-invalid", "invalid-argument"].contains(variant) ? .badRequest : .ok
        return Self.json(body, status: status, contentType: "application/json; charset=UTF-8")
    }

    func error(status: Int) -> HTTPResponse? { Self.recordedError(errors, status: status, contentType: "application/json; charset=UTF-8") }
}

extension FixtureUpstream.Upstream {
    public static let gemini = Self("gemini")
}

extension FixtureUpstream {
    public var geminiURL: String { baseURL + "/v1beta" }
}
