import Foundation
import HTTPServer
import Parsing
import ReplayMatching

/// FMI's warnings service (alerts.fmi.fi): the RSS feed of the current publication (`feed-previous/` in the
/// ``FixtureUpstream/Mode/previousPublication`` mode) and the CAP documents its items link, every time moved to
/// now. The feeds' links name alerts.fmi.fi: they are rewritten to this server. Feeds and documents carry `ETag` and
/// `Last-Modified` and answer `If-None-Match` / `If-Modified-Since` with `304`, as the README says the double does.
struct FMIWarningsDouble: UpstreamDouble {
    let upstream = FixtureUpstream.Upstream.fmiWarnings
    let paths = ["/cap/feed/{file}", "/cap/{year}/{day}/{time}/{file}"]
    func settings(of server: FixtureUpstream) -> [String: String] { ["PIER_FMI_WARNINGS_URL": server.fmiWarningsURL] }
    private let feeds: [String: [UInt8]]
    private let previous: [String: [UInt8]]
    private let documents: [String: [UInt8]]

    /// The fixtures are written for now = 2026-11-23T10:00:00Z.
    static let writtenFor = Date(timeIntervalSince1970: 1_795_428_000)

    init() throws {
        let root = Fixtures.root.appendingPathComponent("fmi-warnings")
        feeds = try Self.files(in: root.appendingPathComponent("feed"), under: "/cap/feed")
        previous = try Self.files(in: root.appendingPathComponent("feed-previous"), under: "/cap/feed")
        documents = try Self.files(in: root.appendingPathComponent("cap"), under: "/cap")
    }

    /// Every file below `directory`, by its path under `prefix`.
    private static func files(in directory: URL, under prefix: String) throws -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        guard let walker = FileManager.default.enumerator(atPath: directory.path) else { return files }
        for case let relative as String in walker {
            let url = directory.appendingPathComponent(relative)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            files[prefix + "/" + relative] = Array(try Data(contentsOf: url))
        }
        return files
    }

    func answer(_ request: FixtureUpstream.Request) -> HTTPResponse { answer(request, feeds: feeds) }

    func answer(_ request: FixtureUpstream.Request, variant: String) -> HTTPResponse? {
        switch variant {
        case "previous": return answer(request, feeds: previous)
        case "unreadable-document" where request.path.hasSuffix("/4105.1.xml"):
            return HTTPResponse(headers: ["Content-Type": "application/xml"], body: Array("<html><body>Maintenance</body></html>".utf8))
        default: return nil
        }
    }

    private func answer(_ request: FixtureUpstream.Request, feeds: [String: [UInt8]]) -> HTTPResponse {
        let isFeed = request.path.hasPrefix("/cap/feed/")
        guard var body = (isFeed ? feeds : documents)[request.path] else { return .text("no such warnings file", status: .notFound) }
        let host = request.headers["host"] ?? "127.0.0.1"
        if isFeed {
            body = Array(String(decoding: body, as: UTF8.self).replacingOccurrences(of: "https://alerts.fmi.fi/", with: "http://\(host)/").utf8)
        }
        let shift = TimeShift.hours(from: Self.writtenFor, to: Date())
        body = TimeShift.shift(offsetTimes: body, by: shift)
        let tag = "\"\(body.reduce(UInt64(14_695_981_039_346_656_037)) { ($0 ^ UInt64($1)) &* 1_099_511_628_211 })\""
        let modified = HTTPDate.format(Self.writtenFor.addingTimeInterval(shift - 300))
        if request.headers["if-none-match"] == tag || (request.headers["if-none-match"] == nil && request.headers["if-modified-since"] == modified) {
            return HTTPResponse(status: HTTPStatus(code: 304, reason: "Not Modified"), headers: ["ETag": tag, "Last-Modified": modified], body: [])
        }
        let type = isFeed ? "application/rss+xml; charset=UTF-8" : "application/cap+xml; charset=UTF-8"
        return HTTPResponse(headers: ["Content-Type": type, "ETag": tag, "Last-Modified": modified], body: body)
    }
}

extension FixtureUpstream.Upstream {
    public static let fmiWarnings = Self("fmi-warnings")
}

extension FixtureUpstream.Mode {
    /// The publication before the current one (`feed-previous/`): an Alert the current one updates, one it cancels,
    /// one that left the feed.
    public static let previousPublication = Self.variant("previous")
    /// The current publication, but one of its documents (Tampere's) answers an HTML page.
    public static let unreadableDocument = Self.variant("unreadable-document")
}

extension FixtureUpstream {
    /// The warnings feed (`PIER_FMI_WARNINGS_URL`).
    public var fmiWarningsURL: String { baseURL + "/cap/feed/rss_en-GB.rss" }
}
