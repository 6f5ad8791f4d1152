import Foundation
import HTTPServer
import Logging
import ReplayMatching
import Scheduling
import UpstreamHTTP

/// Recorded upstream answers served as the upstreams themselves: a local HTTP server (our own) on loopback
/// that answers each request with the recorded exchange that fits it best. Pier's real client, parsers,
/// stores and caches run unchanged against it: `pier serve --replay DIR`, `pier fetch … --replay DIR`, and the
/// demo (`--demo`, the bundled recordings with their times moved to now).
///
/// Each upstream's URL becomes `http://127.0.0.1:<port>/<original host>/<original path>` (``url(for:)``). A
/// request is matched among the exchanges recorded for its host and path: the same query exactly (except in the
/// demo, for queries that name a day); else what the upstream's ``ReplayMatcher`` picks (a recording of last
/// week's day for this week's, the point nearest the one asked, …); else the first. A path segment holding a
/// time (`yyyyMMddHHmm`) matches any time. The matcher also
/// moves the answer to now. An exchange that recorded no answer (a timeout, a refused connection) is answered
/// `502` with the recorded error.
public final class ReplayUpstream: Sendable {
    private let server: HTTPServer
    private let moveToNow: Bool
    private let matchers: SharedValue<[any ReplayMatcher]>

    /// - Parameters:
    ///   - recorded: the exchanges of one or more captures.
    ///   - moveToNow: answers moved to now (the demo), by each upstream's matcher.
    ///   - matchers: each upstream's (``use(_:)`` sets them later, once the features that list them exist).
    public init(
        recorded: [UpstreamCapture.Recorded], moveToNow: Bool, matchers: [any ReplayMatcher] = [], logger: Logger = Logger(label: "pier.replay")
    ) throws {
        self.moveToNow = moveToNow
        let matchers = SharedValue(matchers)
        self.matchers = matchers
        var byRoute: [String: [ReplayEntry]] = [:]
        for item in recorded {
            guard let components = URLComponents(string: item.exchange.url), let host = components.host else { continue }
            // Paths that carry times (`…/{yyyyMMddHHmm}/…`) are served for any time: the segment becomes a
            // template parameter.
            let route = Self.template(Self.route(host: host, port: components.port, path: components.path))
            var query: [String: String] = [:]
            for pair in components.queryItems ?? [] { query[pair.name] = pair.value ?? "" }
            let received = (try? Date(item.exchange.receivedAt, strategy: .iso8601)) ?? Date()
            byRoute[route, default: []].append(ReplayEntry(exchange: item.exchange, body: item.body, query: query, receivedAt: received))
        }
        var router = Router()
        for (route, entries) in byRoute {
            // Upstreams send no CORS headers: the replay adds none either.
            // POST too: an upstream asked with a body (Gemini's generateContent) is matched by its path alone.
            for method in [HTTPMethod.get, .post] {
                router.on(method, route, access: .restricted) { request in
                    Self.answer(request, from: entries, matchers: matchers.value, moveToNow: moveToNow, now: Date())
                }
            }
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

    /// The upstreams' matchers (the features list them; they exist only after the replay started).
    public func use(_ matchers: [any ReplayMatcher]) {
        self.matchers.update { $0 = matchers }
    }

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

    private static func answer(
        _ request: HTTPRequest, from entries: [ReplayEntry], matchers: [any ReplayMatcher], moveToNow: Bool, now: Date
    ) -> HTTPResponse {
        var query: [String: String] = [:]
        for pair in request.query.pairs { query[pair.name] = pair.value }
        let matcher = matchers.first { $0.handles(path: request.path, query: query) }
        let exact = moveToNow && matcher?.queriesNameADay == true ? nil : entries.first { $0.query == query }
        guard let entry = exact ?? matcher?.pick(query, from: entries, now: now) ?? entries.first else {
            return .text("nothing recorded for this request", status: .notFound)
        }
        guard let status = entry.exchange.status else {
            return .text("recorded without an answer: \(entry.exchange.error ?? "no response")", status: .badGateway)
        }
        var headers = HTTPHeaders()
        if let contentType = entry.exchange.headers.first(where: { $0.key.lowercased() == "content-type" })?.value {
            headers.add("Content-Type", contentType)
        }
        let body = matcher?.body(of: entry, for: query, moveToNow: moveToNow, now: now) ?? entry.body
        return HTTPResponse(status: HTTPStatus(code: status, reason: "Replayed"), headers: headers, body: body)
    }
}
