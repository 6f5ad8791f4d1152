import Foundation
import HTTPServer

/// ZSG's ship deployments: a different fixture page per requested date (`timestamp`, epoch milliseconds), so a
/// correct week is never byte-identical.
struct ZSGDouble: UpstreamDouble {
    let upstream = FixtureUpstream.Upstream.zsg
    let paths = ["/schiffeinsatz"]
    func settings(of server: FixtureUpstream) -> [String: String] { ["PIER_ZSG_URL": server.zsgURL, "PIER_ZSG_PAUSE_S": "0"] }
    private let pages: [[UInt8]]

    init() throws {
        pages = try Fixtures.pages("zsg").map(\.body)
    }

    func answer(_ request: FixtureUpstream.Request) -> HTTPResponse {
        HTTPResponse(headers: FixtureUpstream.htmlHeaders, body: page(for: request.query["timestamp"]))
    }

    func answer(_ request: FixtureUpstream.Request, variant: String) -> HTTPResponse? {
        switch variant {
        case "identical": HTTPResponse(headers: FixtureUpstream.htmlHeaders, body: pages[0])
        case "shifted": HTTPResponse(headers: FixtureUpstream.htmlHeaders, body: page(for: request.query["timestamp"], offset: 1))
        default: nil
        }
    }

    private func page(for timestamp: String?, offset: Int = 0) -> [UInt8] {
        guard let milliseconds = timestamp.flatMap(Int64.init), !pages.isEmpty else { return Array("<div></div>".utf8) }
        let day = Int(milliseconds / 86_400_000) + offset
        return pages[day % pages.count]
    }
}

extension FixtureUpstream.Upstream {
    public static let zsg = Self("zsg")
}

extension FixtureUpstream.Mode {
    /// The same page for every date (the site ignores the date parameter).
    public static let identical = Self.variant("identical")
    /// Next week's schedule: each date gets the fixture page of the following date (new data).
    public static let shifted = Self.variant("shifted")
}

extension FixtureUpstream {
    public var zsgURL: String { baseURL + "/schiffeinsatz" }
}
