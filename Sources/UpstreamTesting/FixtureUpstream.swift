import Fetching
import Foundation
import HTTPServer
import Logging
import Replay
import Synchronization

/// A local stand-in for ZSG, MeteoNews, FMI, transport.opendata.ch, OpenWeather, Alplakes, TfNSW, Geoapify and Wikipedia: our own HTTP server serving the recorded
/// fixture pages, with switches that make each upstream fail the ways real sites do. Tests point `PIER_ZSG_URL`,
/// `PIER_METEONEWS_URL`, `PIER_FMI_URL` and `PIER_TRANSPORT_URL` at ``zsgURL``, ``meteoNewsURL``, ``fmiURL``
/// and ``transportURL``.
public final class FixtureUpstream: Sendable {
    /// How an upstream answers.
    public enum Mode: Sendable, Equatable {
        /// The fixture pages.
        case normal
        /// This status with a short HTML error page.
        case status(Int)
        /// Never answers (until the server stops).
        case hang
        /// `200` with bytes that are not HTML.
        case garbage
        /// `200` with a large page in a layout the parser does not know (the site was redesigned).
        case changed
        /// ZSG only: the same page for every date (the site ignores the date parameter).
        case identical
        /// MeteoNews only: the table with only its first `rows` rows (a partial page).
        case truncated(rows: Int)
        /// FMI only: an `ows:ExceptionReport` with status 400 (FMI's way of refusing a request).
        case exception
        /// ZSG only: next week's schedule — each date gets the fixture page of the following date (new data).
        case shifted
        /// `429 Too Many Requests` with `Retry-After` (transport.opendata.ch's rate limit).
        case rateLimited(retryAfter: Int)
        /// `200` with exactly these bytes as JSON (variants of an answer).
        case json([UInt8])
        /// Exactly this answer (TfNSW's `403` with `X-Error-Detail`, …).
        case answer(status: Int, headers: [String: String], body: [UInt8])
    }

    public enum Upstream: String, Sendable {
        case zsg, meteonews, fmi, transport, openweather, alplakes, tfnsw, geoapify, wikipedia
    }

    /// One request as the upstream saw it.
    public struct Request: Sendable {
        public var path: String
        public var query: [String: String]
        public var headers: [String: String]
    }

    private let server: HTTPServer
    private let modes = Mutex<[Upstream: Mode]>([:])
    private let log = Mutex<[Request]>([])
    private let zsgPages: [[UInt8]]
    private let meteoNewsPage: [UInt8]
    private let fmiObservations: [UInt8]
    private let fmiForecast: [UInt8]
    private let fmiException: [UInt8]
    /// transport.opendata.ch stationboards of station ``transportStation``, in the order of the ZSG pages.
    private let boards: [(date: String, body: [UInt8])]
    /// OpenWeather forecasts by the point they were written for (the nearest is served).
    private let forecasts: [(latitude: Double, longitude: Double, body: [UInt8])]
    private let openWeatherErrors: [Int: [UInt8]]
    /// Alplakes answers per lake: the profile, its model time (epoch seconds) and the surface series.
    private let lakes: [String: (profile: [UInt8], time: Int, point: [UInt8])]
    /// The lakes the Alplakes fixtures hold; any other is the upstream's `400`.
    public static let alplakesLakes = ["upperzurich", "geneva", "lucernealpnachersee"]
    /// TfNSW `departure_mon` answers by stop id, written for ``tfnswFixtureNow`` (served moved to now); any other stop
    /// is answered with the unknown-stop answer.
    private let departureMonitors: [String: [UInt8]]
    private let unknownStop: [UInt8]
    private let tfnswErrors: [Int: [UInt8]]
    /// The stops the TfNSW fixtures hold.
    public static let tfnswStops = ["G203519", "203294"]
    /// The "now" the TfNSW fixtures were written for (2026-07-05T22:10:00Z, Monday 08:10 in Sydney).
    public static let tfnswFixtureNow = 1_783_289_400
    private let geoapifyPlaces: [UInt8]
    private let geoapifyGeocode: [UInt8]
    private let geoapifyErrors: [Int: [UInt8]]
    /// Wikipedia summaries by normalised title; ``wikipediaRedirect`` answers `302` to the first; any other
    /// title is the `404` problem document.
    private let summaries: [String: [UInt8]]
    private let summaryMissing: [UInt8]
    private let openSearch: [UInt8]
    public static let wikipediaTitles = ["Kaiserburg_Nürnberg", "Schöner_Brunnen"]
    /// A title the fixture Wikipedia redirects (`302`) to `Kaiserburg_Nürnberg`, as RESTBase does for a redirect page.
    public static let wikipediaRedirect = "Nürnberger_Burg"
    /// The station the transport fixtures are for (Zürich Bürkliplatz (See)); any other id is unknown (`404`).
    public static let transportStation = "8503651"

    public init() throws {
        zsgPages = try Fixtures.pages("zsg").map(\.body)
        meteoNewsPage = try Fixtures.bytes("meteonews", "seen-in-der-schweiz.2026-07-04.html")
        let gzip = try Fixtures.bytes("http", "ship.html.gz")
        fmiObservations = try Fixtures.bytes("fmi", "observations.xml")
        fmiForecast = try Fixtures.bytes("fmi", "forecast-point.xml")
        fmiException = try Fixtures.bytes("fmi/real", "extra-exception-no-data.xml")
        boards = try Fixtures.stationboards()
        forecasts = try [
            (47.3657, 8.5410, "forecast-zurich-2026-07-04.json"), (47.2253, 8.8147, "forecast-rapperswil-2026-11-23.json"),
            (46.5065, 6.6268, "forecast-ouchy-2026-11-23.json"),
        ].map { ($0.0, $0.1, try Fixtures.bytes("openweather", $0.2)) }
        openWeatherErrors = [401: try Fixtures.bytes("openweather", "401.json"), 429: try Fixtures.bytes("openweather", "429.json")]
        var lakes: [String: (profile: [UInt8], time: Int, point: [UInt8])] = [:]
        for lake in Self.alplakesLakes {
            let profile = try Fixtures.bytes("alplakes", "profile-\(lake).json")
            lakes[lake] = (profile, Self.profileTime(profile), try Fixtures.bytes("alplakes", "point-\(lake).json"))
        }
        self.lakes = lakes
        var monitors: [String: [UInt8]] = [:]
        for stop in Self.tfnswStops { monitors[stop] = try Fixtures.bytes("nsw", "departure_mon-\(stop).json") }
        departureMonitors = monitors
        unknownStop = try Fixtures.bytes("nsw", "departure_mon-unknown-stop.json")
        tfnswErrors = [401: try Fixtures.bytes("nsw", "401.json")]
        geoapifyPlaces = try Fixtures.bytes("geoapify", "places-nuernberg.json")
        geoapifyGeocode = try Fixtures.bytes("geoapify", "geocode-nuernberg.json")
        geoapifyErrors = [
            400: try Fixtures.bytes("geoapify", "400-top-level-category.json"), 401: try Fixtures.bytes("geoapify", "401.json"),
            429: try Fixtures.bytes("geoapify", "429.json"),
        ]
        summaries = [
            "Kaiserburg_Nürnberg": try Fixtures.bytes("wikipedia", "summary-Kaiserburg_Nuernberg.json"),
            "Schöner_Brunnen": try Fixtures.bytes("wikipedia", "summary-Schoener_Brunnen.json"),
        ]
        summaryMissing = try Fixtures.bytes("wikipedia", "404.json")
        openSearch = try Fixtures.bytes("wikipedia", "opensearch-Schoener_Brunnen_Nuernberg.json")
        var router = Router()
        let holder = Holder()
        router.on(.get, "/schiffeinsatz", access: .restricted) { request async in
            await holder.upstream?.answer(.zsg, request) ?? .text("", status: .serviceUnavailable)
        }
        router.on(.get, "/seen-in-der-schweiz", access: .restricted) { request async in
            await holder.upstream?.answer(.meteonews, request) ?? .text("", status: .serviceUnavailable)
        }
        router.on(.get, "/wfs", access: .restricted) { request async in
            await holder.upstream?.answer(.fmi, request) ?? .text("", status: .serviceUnavailable)
        }
        router.on(.get, "/v1/stationboard", access: .restricted) { request async in
            await holder.upstream?.answer(.transport, request) ?? .text("", status: .serviceUnavailable)
        }
        router.on(.get, "/data/2.5/forecast", access: .restricted) { request async in
            await holder.upstream?.answer(.openweather, request) ?? .text("", status: .serviceUnavailable)
        }
        for template in ["/simulations/1d/profile/simstrat/{lake}/{time}", "/simulations/1d/point/simstrat/{lake}/{start}/{end}/{depth}"] {
            router.on(.get, template, access: .restricted) { request async in
                await holder.upstream?.answer(.alplakes, request) ?? .text("", status: .serviceUnavailable)
            }
        }
        router.on(.get, "/v1/tp/departure_mon", access: .restricted) { request async in
            await holder.upstream?.answer(.tfnsw, request) ?? .text("", status: .serviceUnavailable)
        }
        for path in ["/v2/places", "/v1/geocode/search"] {
            router.on(.get, path, access: .restricted) { request async in
                await holder.upstream?.answer(.geoapify, request) ?? .text("", status: .serviceUnavailable)
            }
        }
        for template in ["/wiki/{lang}/api/rest_v1/page/summary/{title}", "/wiki/{lang}/w/api.php"] {
            router.on(.get, template, access: .restricted) { request async in
                await holder.upstream?.answer(.wikipedia, request) ?? .text("", status: .serviceUnavailable)
            }
        }
        router.on(.get, "/redirect", access: .restricted) { request in
            let left = Int(request.query["n"] ?? "0") ?? 0
            let target = left > 0 ? "/redirect?n=\(left - 1)" : "/seen-in-der-schweiz"
            return HTTPResponse(status: HTTPStatus(code: 302, reason: "Found"), headers: ["Location": target])
        }
        router.on(.get, "/large", access: .restricted) { request in
            let bytes = Int(request.query["bytes"] ?? "0") ?? 0
            return HTTPResponse(headers: ["Content-Type": "text/html"], body: [UInt8](repeating: UInt8(ascii: "a"), count: bytes))
        }
        router.on(.get, "/gzip", access: .restricted) { _ in
            HTTPResponse(headers: ["Content-Type": "text/html; charset=utf-8", "Content-Encoding": "gzip"], body: gzip)
        }
        var logger = Logger(label: "fixture-upstream")
        logger.logLevel = .critical
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, eventLoopCount: 1)
        configuration.shutdownGracePeriod = .milliseconds(200)
        server = try HTTPServer(configuration: configuration, router: router, logger: logger)
        holder.upstream = self
        try server.start()
    }

    deinit {
        server.stop()
    }

    public var port: Int { server.port }
    public var baseURL: String { "http://127.0.0.1:\(port)" }
    public var zsgURL: String { baseURL + "/schiffeinsatz" }
    public var meteoNewsURL: String { baseURL + "/seen-in-der-schweiz" }

    public func set(_ upstream: Upstream, _ mode: Mode) {
        modes.withLock { $0[upstream] = mode }
    }

    /// Requests received so far for `upstream`.
    public var fmiURL: String { baseURL + "/wfs" }
    public var transportURL: String { baseURL + "/v1" }
    public var openWeatherURL: String { baseURL + "/data/2.5" }
    public var alplakesURL: String { baseURL }
    public var tfnswURL: String { baseURL + "/v1/tp" }
    public var geoapifyURL: String { baseURL }
    public var wikipediaURL: String { baseURL + "/wiki/{lang}" }

    public func requests(_ upstream: Upstream) -> [Request] {
        let matches: (String) -> Bool = switch upstream {
        case .zsg: { $0 == "/schiffeinsatz" }
        case .meteonews: { $0 == "/seen-in-der-schweiz" }
        case .fmi: { $0 == "/wfs" }
        case .transport: { $0 == "/v1/stationboard" }
        case .openweather: { $0 == "/data/2.5/forecast" }
        case .alplakes: { $0.hasPrefix("/simulations/1d/") }
        case .tfnsw: { $0 == "/v1/tp/departure_mon" }
        case .geoapify: { $0 == "/v2/places" || $0 == "/v1/geocode/search" }
        case .wikipedia: { $0.hasPrefix("/wiki/") }
        }
        return log.withLock { $0.filter { matches($0.path) } }
    }

    public func stop() {
        server.stop()
    }

    private func answer(_ upstream: Upstream, _ request: HTTPRequest) async -> HTTPResponse {
        var query: [String: String] = [:]
        for pair in request.query.pairs { query[pair.name] = pair.value }
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name] = field.value }
        log.withLock { $0.append(Request(path: request.path, query: query, headers: headers)) }

        switch modes.withLock({ $0[upstream] }) ?? .normal {
        case let .status(code) where upstream == .tfnsw && tfnswErrors[code] != nil:
            return HTTPResponse(
                status: HTTPStatus(code: code, reason: "Upstream Error"), headers: ["Content-Type": "application/json"], body: tfnswErrors[code] ?? [])
        case let .status(code) where upstream == .geoapify && geoapifyErrors[code] != nil:
            return HTTPResponse(
                status: HTTPStatus(code: code, reason: "Upstream Error"), headers: ["Content-Type": "application/json; charset=utf-8"],
                body: geoapifyErrors[code] ?? [])
        case let .status(code) where upstream == .openweather && openWeatherErrors[code] != nil:
            return HTTPResponse(
                status: HTTPStatus(code: code, reason: "Upstream Error"), headers: ["Content-Type": "application/json; charset=utf-8"],
                body: openWeatherErrors[code] ?? [])
        case let .status(code):
            return .text("<html><body>Error \(code)</body></html>", status: HTTPStatus(code: code, reason: "Upstream Error"), contentType: "text/html")
        case .hang:
            try? await Task.sleep(for: .seconds(120))
            return .text("too late")
        case .garbage:
            return HTTPResponse(headers: ["Content-Type": "text/html"], body: (0..<6000).map { UInt8(truncatingIfNeeded: $0 &* 7 | 1) })
        case .changed:
            let cards = (0..<60).map { "<article class=\"vessel-card\"><h3>Vessel \($0)</h3><ul><li>Trip \($0)</li></ul></article>" }
            return html("<main class=\"new-layout\">\(cards.joined())</main>")
        case .identical:
            return HTTPResponse(headers: Self.htmlHeaders, body: zsgPages[0])
        case let .truncated(rows):
            return html(Self.truncated(meteoNewsPage, rows: rows))
        case .exception:
            return HTTPResponse(status: .badRequest, headers: ["Content-Type": "text/xml; charset=UTF-8"], body: fmiException)
        case let .rateLimited(seconds):
            return HTTPResponse(
                status: HTTPStatus(code: 429, reason: "Too Many Requests"),
                headers: ["Content-Type": "application/json", "Retry-After": String(seconds)],
                body: Array(#"{"errors":[{"message":"Too Many Requests"}]}"#.utf8))
        case let .json(body):
            return HTTPResponse(headers: ["Content-Type": "application/json"], body: body)
        case let .answer(status, headers, body):
            var fields = HTTPHeaders()
            for (name, value) in headers { fields.add(name, value) }
            return HTTPResponse(status: HTTPStatus(code: status, reason: "Upstream Answer"), headers: fields, body: body)
        case .normal:
            if upstream == .tfnsw { return departureMonitor(query) }
            if upstream == .geoapify { return geoapify(request.path, query) }
            if upstream == .wikipedia { return wikipedia(request.path, query) }
            if upstream == .transport { return stationboard(query) }
            if upstream == .openweather { return forecast(query) }
            if upstream == .alplakes { return alplakes(request.path) }
            if upstream == .fmi {
                let document = (query["storedquery_id"] ?? "").contains("observations") ? fmiObservations : fmiForecast
                return HTTPResponse(headers: ["Content-Type": "text/xml; charset=UTF-8"], body: Self.movedToNow(document))
            }
            if upstream == .meteonews { return HTTPResponse(headers: Self.htmlHeaders, body: meteoNewsPage) }
            return HTTPResponse(headers: Self.htmlHeaders, body: zsgPage(for: query["timestamp"]))
        case .shifted:
            return HTTPResponse(headers: Self.htmlHeaders, body: zsgPage(for: query["timestamp"], offset: 1))
        }
    }

    /// Places around any point are the Nürnberg fixture; a geocoding search for Nürnberg is the geocoding
    /// fixture, any other text finds nothing.
    private func geoapify(_ path: String, _ query: [String: String]) -> HTTPResponse {
        let json: HTTPHeaders = ["Content-Type": "application/json; charset=utf-8"]
        if path.hasSuffix("/v2/places") { return HTTPResponse(headers: json, body: geoapifyPlaces) }
        let found = (query["text"] ?? "").lowercased().contains("nürnberg")
        return HTTPResponse(headers: json, body: found ? geoapifyGeocode : Array(#"{"type":"FeatureCollection","features":[]}"#.utf8))
    }

    /// RESTBase's summaries (a known title, the redirect, or `404`) and `action=opensearch` (the fixture for a
    /// search naming the Schöner Brunnen, else no titles).
    private func wikipedia(_ path: String, _ query: [String: String]) -> HTTPResponse {
        let json = "application/json; charset=utf-8"
        guard let title = path.split(separator: "/summary/").last.map(String.init), path.contains("/summary/") else {
            let search = query["search"] ?? ""
            let body = search.contains("Brunnen") ? openSearch : Array("[\(JSONString.quote(search)),[],[],[]]".utf8)
            return HTTPResponse(headers: ["Content-Type": json], body: body)
        }
        if title == Self.wikipediaRedirect {
            let target = path.replacingOccurrences(of: title, with: "Kaiserburg_N%C3%BCrnberg")
            return HTTPResponse(status: HTTPStatus(code: 302, reason: "Found"), headers: ["Location": target])
        }
        guard let body = summaries[title] else {
            return HTTPResponse(status: .notFound, headers: ["Content-Type": "application/problem+json"], body: summaryMissing)
        }
        return HTTPResponse(headers: ["Content-Type": json], body: body)
    }

    /// `departure_mon` for the stop in `name_dm`, its times moved so that the fixture's "now" is this minute; an
    /// unknown stop gets the unknown-stop answer (HTTP 200, like the real service).
    private func departureMonitor(_ query: [String: String]) -> HTTPResponse {
        guard let body = departureMonitors[query["name_dm"] ?? ""] else {
            return HTTPResponse(headers: ["Content-Type": "application/json"], body: unknownStop)
        }
        return HTTPResponse(headers: ["Content-Type": "application/json"], body: TimeShift.shift(body, by: TimeInterval(Self.tfnswShift())))
    }

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

    /// The forecast written for the point nearest the asked one, as recorded (its dates are the fixture's).
    private func forecast(_ query: [String: String]) -> HTTPResponse {
        let latitude = query["lat"].flatMap(Double.init) ?? 0, longitude = query["lon"].flatMap(Double.init) ?? 0
        let nearest = forecasts.min { hypot($0.latitude - latitude, $0.longitude - longitude) < hypot($1.latitude - latitude, $1.longitude - longitude) }
        return HTTPResponse(headers: ["Content-Type": "application/json; charset=utf-8"], body: nearest?.body ?? [])
    }

    /// A lake's profile or surface series, moved so that the profile's model step is the current 3-hour step
    /// (the series then runs from the next step for 48 hours); an unknown lake is the upstream's `400`.
    private func alplakes(_ path: String) -> HTTPResponse {
        let parts = path.split(separator: "/")
        guard parts.count >= 6, let lake = lakes[String(parts[4])] else {
            let name = parts.count > 4 ? String(parts[4]) : ""
            return HTTPResponse(
                status: .badRequest, headers: ["Content-Type": "application/json"],
                body: Array(#"{"detail":"simstrat simulation results are not available for \#(name) please select from: [...]"}"#.utf8))
        }
        let body = parts[2] == "profile" ? lake.profile : lake.point
        return HTTPResponse(
            headers: ["Content-Type": "application/json"], body: TimeShift.shift(seconds: Self.alplakesShift(lake.time), inForecastJSON: body))
    }

    /// Seconds the fixtures of a lake whose profile is at `time` are moved by (whole 3-hour steps).
    public static func alplakesShift(_ time: Int, now: Date = Date()) -> Int {
        let step = Int(now.timeIntervalSince1970) / 10_800 * 10_800
        return step - time
    }

    /// The model time of a profile fixture (`"time": "2026-07-04T12:00:00+00:00"`).
    static func profileTime(_ body: [UInt8]) -> Int {
        let text = String(decoding: body, as: UTF8.self)
        guard let range = text.range(of: #""time": ?"[0-9T:-]{19}"#, options: .regularExpression) else { return 0 }
        let stamp = String(text[range].suffix(19)) + "Z"
        return Int((try? Date(stamp, strategy: .iso8601))?.timeIntervalSince1970 ?? 0)
    }

    /// The stationboard for `id` and the requested date (`datetime`'s, `date`, else today in Zurich).
    private func stationboard(_ query: [String: String]) -> HTTPResponse {
        let today = CalendarDate(Date(), in: TimeZone(identifier: "Europe/Zurich") ?? .current).description
        let requested = (query["datetime"].map { String($0.prefix(10)) } ?? query["date"]) ?? today
        guard query["id"] == Self.transportStation, let body = stationboardBody(for: requested) else {
            return HTTPResponse(
                status: .notFound, headers: ["Content-Type": "application/json"],
                body: Array(#"{"errors":[{"message":"Station not found"}]}"#.utf8))
        }
        return HTTPResponse(headers: ["Content-Type": "application/json"], body: body)
    }

    /// The fixture date whose board is served for `date` (`YYYY-MM-DD`): the one whose ZSG page is served for
    /// that date (the same day number modulo the number of pages), so every ZSG course of the date departs on it.
    public func stationboardFixtureDate(for date: String) -> String? {
        guard let requested = CalendarDate(date), !boards.isEmpty else { return nil }
        return boards[(requested.dayNumber % boards.count + boards.count) % boards.count].date
    }

    /// The board served for `date`: the fixture of ``stationboardFixtureDate(for:)`` moved to `date`.
    public func stationboardBody(for date: String) -> [UInt8]? {
        guard let requested = CalendarDate(date), let fixture = stationboardFixtureDate(for: date).flatMap(CalendarDate.init),
            let board = boards.first(where: { $0.date == fixture.description })
        else { return nil }
        return TimeShift.shift(days: requested.dayNumber - fixture.dayNumber, inJSON: board.body)
    }

    /// A different fixture page per requested date, so a correct week is never byte-identical.
    private func zsgPage(for timestamp: String?, offset: Int = 0) -> [UInt8] {
        guard let milliseconds = timestamp.flatMap(Int64.init), !zsgPages.isEmpty else { return Array("<div></div>".utf8) }
        let day = Int(milliseconds / 86_400_000) + offset
        return zsgPages[day % zsgPages.count]
    }

    /// The fixture documents end (observations) or start (forecast) at 2026-11-23T06:00:00Z; every timestamp in
    /// them is moved by the same amount so that this happens at the start of the current hour.
    static func movedToNow(_ document: [UInt8], now: Date = Date()) -> [UInt8] {
        TimeShift.shift(document, by: TimeShift.hours(from: Date(timeIntervalSince1970: 1_795_413_600), to: now))  // 2026-11-23T06:00:00Z
    }

    private func html(_ text: String) -> HTTPResponse {
        HTTPResponse(headers: Self.htmlHeaders, body: Array(text.utf8))
    }

    private static let htmlHeaders: HTTPHeaders = ["Content-Type": "text/html; charset=utf-8"]

    /// The page with only the first `rows` `<tr>` of its table body.
    static func truncated(_ page: [UInt8], rows: Int) -> String {
        let text = String(decoding: page, as: UTF8.self)
        guard let body = text.range(of: "<tbody>"), let end = text.range(of: "</tbody>") else { return text }
        let inner = text[body.upperBound..<end.lowerBound]
        let kept = inner.components(separatedBy: "</tr>").prefix(rows).joined(separator: "</tr>") + "</tr>"
        return String(text[..<body.upperBound]) + kept + String(text[end.lowerBound...])
    }
}

/// Lets the routes reach the upstream object, which exists only after the server is built.
private final class Holder: @unchecked Sendable {
    // Written once in `FixtureUpstream.init` before the server starts; only read afterwards.
    weak var upstream: FixtureUpstream?
}
