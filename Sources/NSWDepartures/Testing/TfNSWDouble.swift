import Foundation
import HTTPServer
import ReplayMatching

/// TfNSW's `departure_mon` for the stop in `name_dm`, its times moved so that the fixture's "now" is this minute;
/// an unknown stop gets the unknown-stop answer (HTTP 200, like the real service).
struct TfNSWDouble: UpstreamDouble {
    let upstream = FixtureUpstream.Upstream.tfnsw
    let paths = ["/v1/tp/departure_mon"]
    func settings(of server: FixtureUpstream) -> [String: String] { ["PIER_NSW_URL": server.tfnswURL] }
    let unlimited = ["PIER_NSW_API_KEY": "double-key", "PIER_NSW_REQUESTS_PER_SECOND": "1000", "PIER_NSW_BURST": "1000", "PIER_NSW_CLIENT_SHARE": "1"]
    private let monitors: [String: [UInt8]]
    private let unknownStop: [UInt8]
    private let errors: [Int: [UInt8]]

    init() throws {
        var monitors: [String: [UInt8]] = [:]
        for stop in FixtureUpstream.tfnswStops { monitors[stop] = try Fixtures.bytes("nsw", "departure_mon-\(stop).json") }
        self.monitors = monitors
        unknownStop = try Fixtures.bytes("nsw", "departure_mon-unknown-stop.json")
        errors = [401: try Fixtures.bytes("nsw", "401.json")]
    }

    func answer(_ request: FixtureUpstream.Request) -> HTTPResponse {
        guard let body = monitors[request.query["name_dm"] ?? ""] else { return Self.json(unknownStop) }
        return Self.json(TimeShift.shift(body, by: TimeInterval(FixtureUpstream.tfnswShift())))
    }

    func error(status: Int) -> HTTPResponse? { Self.recordedError(errors, status: status, contentType: "application/json") }
}

extension FixtureUpstream.Upstream {
    public static let tfnsw = Self("tfnsw")
}

extension FixtureUpstream {
    public var tfnswURL: String { baseURL + "/v1/tp" }

    /// The stops the TfNSW fixtures hold.
    public static let tfnswStops = ["G203519", "203294"]
    /// The "now" the TfNSW fixtures were written for (2026-07-05T22:10:00Z, Monday 08:10 in Sydney).
    public static let tfnswFixtureNow = 1_783_289_400

    /// Seconds the TfNSW fixtures are moved by: from their "now" to the start of the current minute.
    public static func tfnswShift(now: Date = Date()) -> Int {
        Int(now.timeIntervalSince1970) / 60 * 60 - tfnswFixtureNow
    }

    /// TfNSW's limit answers as recorded (`403` with `X-Error-Detail`): `over-rate` or `over-quota`.
    public static func tfnswLimit(_ name: String) throws -> Mode {
        let body = try Fixtures.bytes("nsw", "403-\(name).json")
        let head = String(decoding: try Fixtures.bytes("nsw", "403-\(name).headers"), as: UTF8.self)
        var headers: [String: String] = [:]
        for line in head.split(separator: "\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return .answer(status: 403, headers: headers, body: body)
    }
}
