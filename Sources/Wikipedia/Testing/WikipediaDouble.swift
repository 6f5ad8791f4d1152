import Foundation
import HTTPServer

/// Wikipedia: RESTBase's summaries (a known title, the redirect, or `404`) and `action=opensearch` (the fixture for
/// a search naming the Schöner Brunnen, else no titles).
struct WikipediaDouble: UpstreamDouble {
    let upstream = FixtureUpstream.Upstream.wikipedia
    let paths = ["/wiki/{lang}/api/rest_v1/page/summary/{title}", "/wiki/{lang}/w/api.php"]
    func settings(of server: FixtureUpstream) -> [String: String] { ["PIER_WIKIPEDIA_URL": server.wikipediaURL] }
    let unlimited = ["PIER_WIKIPEDIA_REQUESTS_PER_SECOND": "1000", "PIER_WIKIPEDIA_BURST": "1000", "PIER_WIKIPEDIA_CLIENT_SHARE": "1"]
    /// Summaries by normalised title.
    private let summaries: [String: [UInt8]]
    private let missing: [UInt8]
    private let openSearch: [UInt8]

    init() throws {
        summaries = [
            "Kaiserburg_Nürnberg": try Fixtures.bytes("wikipedia", "summary-Kaiserburg_Nuernberg.json"),
            "Schöner_Brunnen": try Fixtures.bytes("wikipedia", "summary-Schoener_Brunnen.json"),
        ]
        missing = try Fixtures.bytes("wikipedia", "404.json")
        openSearch = try Fixtures.bytes("wikipedia", "opensearch-Schoener_Brunnen_Nuernberg.json")
    }

    func answer(_ request: FixtureUpstream.Request) -> HTTPResponse {
        let json = "application/json; charset=utf-8"
        let path = request.path
        // Found in the path's bytes, not its Characters: a title starting with an emoji modifier or a combining mark
        // joins the slash before it into one Character, and a summary would be taken for a search.
        guard let marker = path.utf8.firstRange(of: "/summary/".utf8) else {
            let search = request.query["search"] ?? ""
            let body = search.contains("Brunnen") ? openSearch : Array("[\(JSONWriter.quoted(search)),[],[],[]]".utf8)
            return Self.json(body, contentType: json)
        }
        let title = String(decoding: path.utf8[marker.upperBound...], as: UTF8.self)
        if title == FixtureUpstream.wikipediaRedirect {
            let target = path.replacingOccurrences(of: title, with: "Kaiserburg_N%C3%BCrnberg")
            return HTTPResponse(status: HTTPStatus(code: 302, reason: "Found"), headers: ["Location": target])
        }
        guard let body = summaries[title] else { return Self.json(missing, status: .notFound, contentType: "application/problem+json") }
        return Self.json(body, contentType: json)
    }
}

extension FixtureUpstream.Upstream {
    public static let wikipedia = Self("wikipedia")
}

extension FixtureUpstream {
    public var wikipediaURL: String { baseURL + "/wiki/{lang}" }

    public static let wikipediaTitles = ["Kaiserburg_Nürnberg", "Schöner_Brunnen"]
    /// A title the fixture Wikipedia redirects (`302`) to `Kaiserburg_Nürnberg`, as RESTBase does for a redirect page.
    public static let wikipediaRedirect = "Nürnberger_Burg"
}
