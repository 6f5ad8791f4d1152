import Fetching
import Foundation
import HTTPServer
import Logging

/// Recorded upstream answers served as the upstreams themselves: a local HTTP server (our own) on loopback
/// that answers each request with the recorded exchange that fits it best. Pier's real client, parsers,
/// stores and caches run unchanged against it: `pier serve --replay DIR`, `pier fetch … --replay DIR`, and the
/// demo (`--demo`, the bundled recordings with their times moved to now).
///
/// Each upstream's URL becomes `http://127.0.0.1:<port>/<original host>/<original path>` (``url(for:)``). A
/// request is matched among the exchanges recorded for its host and path: the same query exactly; else, for
/// ZSG's `timestamp` (a date, in epoch milliseconds), the day at the same distance from today as the recorded
/// day was from the recording's first day (a recording made last week serves this week); for a stationboard's
/// `date` (or `datetime`), likewise, with the answer's dates moved to the one asked for; else the same FMI
/// `storedquery_id` (a point forecast serves any point); else, for a `lat`/`lon` query, the recording nearest that
/// point; else the first. A path segment holding a time (`yyyyMMddHHmm`) matches any time, and JSON forecasts
/// (OpenWeather, Alplakes) are moved by the whole 3-hour steps since they were recorded. A TfNSW `departure_mon`
/// request (`name_dm`) gets the recording of its stop (else the one recorded for `name_dm=*`), moved by the whole
/// minutes since it was recorded. A Geoapify geocoding search (`text`) or a Wikipedia search (`search`) gets its own
/// recording, else the one recorded for `*`. An exchange that recorded no answer
/// (a timeout, a refused connection) is answered `502` with the recorded error.
public final class ReplayUpstream: Sendable {
    private struct Entry: Sendable {
        var exchange: UpstreamCapture.Exchange
        var body: [UInt8]
        var query: [String: String]
        var receivedAt: Date
    }

    private let server: HTTPServer
    private let moveToNow: Bool

    /// - Parameters:
    ///   - recorded: the exchanges of one or more captures.
    ///   - moveToNow: shift the timestamps in XML answers by the whole hours since they were received (demo).
    public init(recorded: [UpstreamCapture.Recorded], moveToNow: Bool, logger: Logger = Logger(label: "pier.replay")) throws {
        self.moveToNow = moveToNow
        var byRoute: [String: [Entry]] = [:]
        for item in recorded {
            guard let components = URLComponents(string: item.exchange.url), let host = components.host else { continue }
            // Paths that carry times (Alplakes' `…/{yyyyMMddHHmm}/…`) are served for any time: the segment becomes a
            // template parameter.
            let route = Self.template(Self.route(host: host, port: components.port, path: components.path))
            var query: [String: String] = [:]
            for pair in components.queryItems ?? [] { query[pair.name] = pair.value ?? "" }
            let received = (try? Date(item.exchange.receivedAt, strategy: .iso8601)) ?? Date()
            byRoute[route, default: []].append(Entry(exchange: item.exchange, body: item.body, query: query, receivedAt: received))
        }
        var router = Router()
        for (route, entries) in byRoute {
            // Upstreams send no CORS headers: the replay adds none either.
            router.on(.get, route, access: .restricted) { request in Self.answer(request, from: entries, moveToNow: moveToNow, now: Date()) }
        }
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, eventLoopCount: 1)
        configuration.shutdownGracePeriod = .milliseconds(200)
        var quiet = logger
        quiet.logLevel = .warning
        server = try HTTPServer(configuration: configuration, router: router, logger: quiet)
        try server.start()
    }

    /// Reads a capture folder, or a folder of capture folders (the demo recordings).
    public static func read(_ directory: URL) throws -> [UpstreamCapture.Recorded] {
        let manager = FileManager.default
        if let own = try? UpstreamCapture.read(from: directory) { return own }
        let folders = try manager.contentsOfDirectory(atPath: directory.path).sorted()
            .map { directory.appendingPathComponent($0) }
            .filter { (try? $0.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true }
        let recorded = folders.flatMap { (try? UpstreamCapture.read(from: $0)) ?? [] }
        guard !recorded.isEmpty else { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: directory.path]) }
        return recorded
    }

    public var port: Int { server.port }

    /// Where to send what would have gone to `original` (an upstream base URL from the configuration).
    public func url(for original: String) -> String {
        guard let components = URLComponents(string: original), let host = components.host else { return original }
        var url = "http://127.0.0.1:\(port)" + Self.route(host: host, port: components.port, path: components.path)
        if let query = components.percentEncodedQuery { url += "?" + query }
        return url
    }

    public func stop() {
        server.stop()
    }

    private static func route(host: String, port: Int?, path: String) -> String {
        "/" + host + (port.map { ":\($0)" } ?? "") + (path.isEmpty ? "/" : path)
    }

    /// `route` with every 12-digit segment (a `yyyyMMddHHmm` time) made a template parameter.
    static func template(_ route: String) -> String {
        var index = 0
        return route.split(separator: "/", omittingEmptySubsequences: false).map { segment -> String in
            guard segment.count == 12, segment.allSatisfy({ $0.isASCII && $0.isNumber }) else { return String(segment) }
            index += 1
            return "{t\(index)}"
        }.joined(separator: "/")
    }

    private static func answer(_ request: HTTPRequest, from entries: [Entry], moveToNow: Bool, now: Date) -> HTTPResponse {
        var query: [String: String] = [:]
        for pair in request.query.pairs { query[pair.name] = pair.value }
        guard let entry = match(query, in: entries, now: now) else { return .text("nothing recorded for this request", status: .notFound) }
        guard let status = entry.exchange.status else {
            return .text("recorded without an answer: \(entry.exchange.error ?? "no response")", status: .badGateway)
        }
        var headers = HTTPHeaders()
        let contentType = entry.exchange.headers.first { $0.key.lowercased() == "content-type" }?.value
        if let contentType { headers.add("Content-Type", contentType) }
        var body = entry.body
        if moveToNow, contentType?.lowercased().contains("xml") == true {
            body = TimeShift.shift(body, by: TimeShift.hours(from: entry.receivedAt, to: now))
        }
        if moveToNow, query["name_dm"] != nil {
            // TfNSW departures: moved by the whole minutes since the recording, so they leave from now on.
            body = TimeShift.shift(body, by: TimeShift.minutes(from: entry.receivedAt, to: now))
        } else if let wanted = requestedDate(query, now: now), let recorded = entry.query["date"].flatMap(CalendarDate.init) {
            body = TimeShift.shift(days: wanted.dayNumber - recorded.dayNumber, inJSON: body)
        } else if moveToNow, query["lat"] != nil || request.path.contains("/simulations/"), contentType?.lowercased().contains("json") == true {
            // OpenWeather and Alplakes: whole 3-hour model steps since the recording, so the forecast starts now.
            body = TimeShift.shift(seconds: TimeShift.forecastSteps(from: entry.receivedAt, to: now), inForecastJSON: body)
        }
        return HTTPResponse(status: HTTPStatus(code: status, reason: "Replayed"), headers: headers, body: body)
    }

    private static let zurich = TimeZone(identifier: "Europe/Zurich") ?? .current

    /// A stationboard request's date: `datetime`'s, else `date`, else today in Zurich; `nil` for other requests.
    private static func requestedDate(_ query: [String: String], now: Date) -> CalendarDate? {
        guard query["id"] != nil else { return nil }
        if let text = query["datetime"] ?? query["date"] { return CalendarDate(String(text.prefix(10))) }
        return CalendarDate(now, in: zurich)
    }

    private static func match(_ query: [String: String], in entries: [Entry], now: Date) -> Entry? {
        if let exact = entries.first(where: { $0.query == query }) { return exact }
        if let wanted = query["timestamp"].flatMap(Double.init) {
            let day = { (milliseconds: Double) in (milliseconds / 86_400_000).rounded(.down) }
            let dated = entries.compactMap { entry in entry.query["timestamp"].flatMap(Double.init).map { (entry, day($0)) } }
            if let first = dated.map(\.1).min() {
                let offset = day(wanted) - (now.timeIntervalSince1970 / 86_400).rounded(.down)
                return dated.min { abs($0.1 - first - offset) < abs($1.1 - first - offset) }?.0
            }
        }
        if query["id"] != nil, let wanted = requestedDate(query, now: now) {
            let dated = entries.compactMap { entry in entry.query["date"].flatMap(CalendarDate.init).map { (entry, $0.dayNumber) } }
            if let first = dated.map(\.1).min() {
                let offset = wanted.dayNumber - CalendarDate(now, in: zurich).dayNumber
                return dated.min { abs($0.1 - first - offset) < abs($1.1 - first - offset) }?.0
            }
        }
        if let stop = query["name_dm"] {
            // A TfNSW stop: its own recording, else the one recorded for any other stop (`name_dm=*`).
            if let same = entries.first(where: { $0.query["name_dm"] == stop }) ?? entries.first(where: { $0.query["name_dm"] == "*" }) {
                return same
            }
        }
        for name in ["text", "search"] {
            // A Geoapify geocoding search or a Wikipedia search: its own recording, else the one for any other text (`*`).
            guard let text = query[name] else { continue }
            if let same = entries.first(where: { $0.query[name] == text }) ?? entries.first(where: { $0.query[name] == "*" }) { return same }
        }
        if let storedQuery = query["storedquery_id"], let same = entries.first(where: { $0.query["storedquery_id"] == storedQuery }) {
            return same
        }
        if let latitude = query["lat"].flatMap(Double.init), let longitude = query["lon"].flatMap(Double.init) {
            // A point forecast (OpenWeather): the recording nearest the point asked.
            let located = entries.compactMap { entry in
                entry.query["lat"].flatMap(Double.init).flatMap { lat in entry.query["lon"].flatMap(Double.init).map { (entry, lat, $0) } }
            }
            if let nearest = located.min(by: { hypot($0.1 - latitude, $0.2 - longitude) < hypot($1.1 - latitude, $1.2 - longitude) }) {
                return nearest.0
            }
        }
        return entries.first
    }
}
