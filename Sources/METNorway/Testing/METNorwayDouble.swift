import Foundation
import HTTPServer
import Parsing
import ReplayMatching

/// MET Norway's Locationforecast 2.0 `compact`: the recorded answer (lat 60, lon 11, 2024-02-04) moved to now by whole
/// multiples of six hours, with `Last-Modified` and `Expires` half an hour later, as MET sends them. It keeps MET's
/// rules: no identifying `User-Agent` (`Product/version (contact)`) or more than four decimals is `403`; an
/// `If-Modified-Since` equal to the `Last-Modified` it would send is `304`.
struct METNorwayDouble: UpstreamDouble {
    let upstream = FixtureUpstream.Upstream.metNorway
    let paths = ["/weatherapi/locationforecast/2.0/compact"]
    func settings(of server: FixtureUpstream) -> [String: String] { ["PIER_METNO_URL": server.metNorwayURL] }
    private let compact: [UInt8]
    static let recordedAt = Date(timeIntervalSince1970: 1_707_008_400)  // 2024-02-04T01:00:00Z, the first step

    init() throws {
        compact = try Fixtures.bytes("metno", "compact-lat60-lon11-2024-02-04.json")
    }

    func answer(_ request: FixtureUpstream.Request) -> HTTPResponse { answer(request, expiresIn: 1800) }

    func answer(_ request: FixtureUpstream.Request, variant: String) -> HTTPResponse? {
        variant == "expired" ? answer(request, expiresIn: -1) : nil
    }

    private func answer(_ request: FixtureUpstream.Request, expiresIn: TimeInterval) -> HTTPResponse {
        let agent = request.headers["user-agent"] ?? ""
        let decimals = [request.query["lat"], request.query["lon"]].map { $0?.split(separator: ".").dropFirst().first?.count ?? 0 }
        guard agent.contains("/"), agent.contains("("), decimals.allSatisfy({ $0 <= 4 }), request.query["lat"] != nil, request.query["lon"] != nil else {
            return .text("403 Forbidden: identify your application (User-Agent) and ask with at most 4 decimals", status: .forbidden)
        }
        let now = Date()
        let modified = HTTPDate.format(Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 3600).rounded(.down) * 3600))
        let headers: HTTPHeaders = [
            "Content-Type": "application/json", "Last-Modified": modified, "Expires": HTTPDate.format(now.addingTimeInterval(expiresIn)),
        ]
        if request.headers["if-modified-since"] == modified {
            return HTTPResponse(status: HTTPStatus(code: 304, reason: "Not Modified"), headers: headers, body: [])
        }
        let body = TimeShift.shift(compact, by: TimeInterval(TimeShift.steps(of: 21_600, from: Self.recordedAt, to: now)))
        return HTTPResponse(headers: headers, body: body)
    }
}

extension FixtureUpstream.Upstream {
    public static let metNorway = Self("metno")
}

extension FixtureUpstream.Mode {
    /// Every answer already past its `Expires`: each use asks again, conditionally.
    public static let expired = Self.variant("expired")
}

extension FixtureUpstream {
    public var metNorwayURL: String { baseURL + "/weatherapi/locationforecast/2.0/compact" }
}
