import Foundation
import HTTPServer
import Logging
import Synchronization

/// A local stand-in for every upstream: our own HTTP server answering with each upstream's recorded fixtures
/// (its ``UpstreamDouble``), with switches that make an upstream fail the ways real sites do. Tests
/// start `pier serve` with ``settings``: every feature pointed at its double.
public final class FixtureUpstream: Sendable {
    /// How an upstream answers.
    public enum Mode: Sendable, Equatable {
        /// The fixtures.
        case normal
        /// This status, with the upstream's recorded error document when it has one, else a short HTML error page.
        case status(Int)
        /// Never answers (until the server stops).
        case hang
        /// The fixtures, after this many seconds (a call many requests join while it is under way).
        case delayed(Double)
        /// `200` with bytes that are not HTML.
        case garbage
        /// `200` with a large page in a layout the parser does not know (the site was redesigned).
        case changed
        /// `429 Too Many Requests` with `Retry-After`.
        case rateLimited(retryAfter: Int)
        /// `200` with exactly these bytes as JSON (variants of an answer).
        case json([UInt8])
        /// Exactly this answer (a recorded limit answer with its headers, …).
        case answer(status: Int, headers: [String: String], body: [UInt8])
        /// A mode of the upstream's own (its double's file names them).
        case variant(String)
    }

    /// An upstream's name (each double's file declares its own).
    public struct Upstream: Hashable, Sendable, CustomStringConvertible {
        public let name: String
        public init(_ name: String) { self.name = name }
        public var description: String { name }
    }

    /// One request as the upstream saw it.
    public struct Request: Sendable {
        public var path: String
        public var query: [String: String]
        public var headers: [String: String]
        /// `GET` or `POST` (an upstream asked with a body: Gemini).
        public var method: String
        public var body: [UInt8]
        var upstream: Upstream
    }

    private let server: HTTPServer
    private let doubles: [Upstream: any UpstreamDouble]
    /// Every double's ``UpstreamDouble/unlimited`` settings.
    public let unlimitedSettings: [String: String]
    private let modes = Mutex<[Upstream: Mode]>([:])
    private let log = Mutex<[Request]>([])

    public init() throws {
        let gzip = try Fixtures.bytes("http", "ship.html.gz")
        var doubles: [Upstream: any UpstreamDouble] = [:]
        var router = Router()
        let holder = Holder()
        for double in try Self.doubles() {
            doubles[double.upstream] = double
            for path in double.paths {
                for method in [HTTPMethod.get, .post] {
                    router.on(method, path, access: .restricted) { request async in
                        await holder.upstream?.answer(double, request) ?? .text("", status: .serviceUnavailable)
                    }
                }
            }
        }
        self.doubles = doubles
        unlimitedSettings = doubles.values.reduce(into: [:]) { $0.merge($1.unlimited) { $1 } }
        // For the upstream client's own tests: redirects, a size cap, gzip.
        router.on(.get, "/redirect", access: .restricted) { request in
            let left = Int(request.query["n"] ?? "0") ?? 0
            let target = left > 0 ? "/redirect?n=\(left - 1)" : "/seen-in-der-schweiz"
            return HTTPResponse(status: HTTPStatus(code: 302, reason: "Found"), headers: ["Location": target])
        }
        router.on(.get, "/redirect-to", access: .restricted) { request in
            HTTPResponse(status: HTTPStatus(code: 302, reason: "Found"), headers: ["Location": request.query["url"] ?? "/"])
        }
        router.on(.get, "/echo-headers", access: .restricted) { request in
            var names: [String] = []
            for field in request.headers { names.append(field.name.lowercased()) }
            return .text(names.sorted().joined(separator: "\n"))
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

    /// Every double's settings for this server (``UpstreamDouble/settings(of:)``): what `pier serve` needs to call
    /// them all.
    public var settings: [String: String] {
        doubles.values.reduce(into: [:]) { $0.merge($1.settings(of: self)) { $1 } }
    }
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    public func set(_ upstream: Upstream, _ mode: Mode) {
        modes.withLock { $0[upstream] = mode }
    }

    /// Requests received so far for `upstream`.
    public func requests(_ upstream: Upstream) -> [Request] {
        log.withLock { $0.filter { $0.upstream == upstream } }
    }

    public func stop() {
        server.stop()
    }

    /// The double of type `D` (for what its file adds to the fixture server).
    func double<D: UpstreamDouble>(_ type: D.Type) -> D? {
        doubles.values.lazy.compactMap { $0 as? D }.first
    }

    private func answer(_ double: any UpstreamDouble, _ http: HTTPRequest) async -> HTTPResponse {
        var query: [String: String] = [:]
        for pair in http.query.pairs { query[pair.name] = pair.value }
        var headers: [String: String] = [:]
        for field in http.headers { headers[field.name] = field.value }
        let request = Request(path: http.path, query: query, headers: headers, method: http.method.rawValue, body: http.body, upstream: double.upstream)
        log.withLock { $0.append(request) }

        switch modes.withLock({ $0[double.upstream] }) ?? .normal {
        case .normal:
            return double.answer(request)
        case let .variant(name):
            return double.answer(request, variant: name) ?? double.answer(request)
        case let .status(code):
            return double.error(status: code)
                ?? .text("<html><body>Error \(code)</body></html>", status: HTTPStatus(code: code, reason: "Upstream Error"), contentType: "text/html")
        case .hang:
            try? await Task.sleep(for: .seconds(120))
            return .text("too late")
        case let .delayed(seconds):
            try? await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            return double.answer(request)
        case .garbage:
            return HTTPResponse(headers: ["Content-Type": "text/html"], body: (0..<6000).map { UInt8(truncatingIfNeeded: $0 &* 7 | 1) })
        case .changed:
            let cards = (0..<60).map { "<article class=\"vessel-card\"><h3>Vessel \($0)</h3><ul><li>Trip \($0)</li></ul></article>" }
            return Self.html("<main class=\"new-layout\">\(cards.joined())</main>")
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
        }
    }

    static func html(_ text: String) -> HTTPResponse {
        HTTPResponse(headers: htmlHeaders, body: Array(text.utf8))
    }

    static let htmlHeaders: HTTPHeaders = ["Content-Type": "text/html; charset=utf-8"]
}

/// Lets the routes reach the upstream object, which exists only after the server is built.
private final class Holder: @unchecked Sendable {
    // Written once in `FixtureUpstream.init` before the server starts; only read afterwards.
    weak var upstream: FixtureUpstream?
}
