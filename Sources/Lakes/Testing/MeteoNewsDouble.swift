import Foundation
import HTTPServer

/// MeteoNews' lake table.
struct MeteoNewsDouble: UpstreamDouble {
    let upstream = FixtureUpstream.Upstream.meteonews
    let paths = ["/seen-in-der-schweiz"]
    func settings(of server: FixtureUpstream) -> [String: String] { ["PIER_METEONEWS_URL": server.meteoNewsURL] }
    private let page: [UInt8]

    init() throws {
        page = try Fixtures.bytes("meteonews", "seen-in-der-schweiz.2026-07-04.html")
    }

    func answer(_ request: FixtureUpstream.Request) -> HTTPResponse {
        HTTPResponse(headers: FixtureUpstream.htmlHeaders, body: page)
    }

    func answer(_ request: FixtureUpstream.Request, variant: String) -> HTTPResponse? {
        guard variant.hasPrefix("truncated:"), let rows = Int(variant.dropFirst("truncated:".count)) else { return nil }
        return FixtureUpstream.html(Self.truncated(page, rows: rows))
    }

    /// The page with only the first `rows` `<tr>` of its table body.
    static func truncated(_ page: [UInt8], rows: Int) -> String {
        let text = String(decoding: page, as: UTF8.self)
        guard let body = text.range(of: "<tbody>"), let end = text.range(of: "</tbody>") else { return text }
        let inner = text[body.upperBound..<end.lowerBound]
        let kept = inner.components(separatedBy: "</tr>").prefix(rows).joined(separator: "</tr>") + "</tr>"
        return String(text[..<body.upperBound]) + kept + String(text[end.lowerBound...])
    }
}

extension FixtureUpstream.Upstream {
    public static let meteonews = Self("meteonews")
}

extension FixtureUpstream.Mode {
    /// The table with only its first `rows` rows (a partial page).
    public static func truncated(rows: Int) -> Self { .variant("truncated:\(rows)") }
}

extension FixtureUpstream {
    public var meteoNewsURL: String { baseURL + "/seen-in-der-schweiz" }
}
