import Glibc
import HTTPServer
import HTTPTesting
import Logging
import Metrics
import Synchronization
import XCTest

/// A real server on a free loopback port with the routes the socket tests need.
final class TestServer {
    let server: HTTPServer
    let gate = Gate()
    let registry = MetricsRegistry()
    /// The close codes the WebSocket route's handlers were told (`0`: the connection was lost).
    let closes = CloseLog()
    /// The WebSocket route's open sockets, for a message to all of them.
    let sockets = SocketRegistry()
    var port: Int { server.port }

    struct Oops: Error {}

    static let bigBody = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)

    static func patterned(_ count: Int) -> [UInt8] { (0..<count).map { UInt8($0 % 251) } }

    init(_ configure: (inout ServerConfiguration) -> Void = { _ in }) throws {
        var configuration = ServerConfiguration(host: "127.0.0.1", port: 0, eventLoopCount: 2)
        configure(&configuration)
        var router = Router()
        let gate = self.gate
        router.on(.get, "/hello") { _ in .text("hello") }
        router.on(.get, "/n") { request in .text("n=\(request.query["i"] ?? "")") }
        router.on(.get, "/async") { request async in
            await Task.yield()
            return .text("a=\(request.query["i"] ?? "")")
        }
        router.on(.post, "/echo") { request in HTTPResponse(status: .ok, headers: ["Content-Type": "application/octet-stream"], body: request.body) }
        router.on(.get, "/big") { _ in HTTPResponse(body: TestServer.bigBody) }
        // A body whose every byte says where it is (251 is prime: no run of it lines up with a buffer's size).
        router.on(.get, "/patterned") { request in HTTPResponse(body: TestServer.patterned(Int(request.query["size"] ?? "") ?? 0)) }
        router.on(.get, "/gate") { _ async in
            await gate.wait()
            return .text("released")
        }
        router.on(.get, "/reject") { _ in throw HTTPError(.badRequest, "lat must be a number") }
        router.on(.get, "/hybrid", fast: { request in
            switch request.query["path"] {
            case "fast": return .text("fast")
            case "bad": throw HTTPError(.badRequest, "bad input is answered on the loop")
            default: return nil
            }
        }, slow: { _ in
            await Task.yield()
            return .text("slow")
        })
        router.on(.get, "/echo-header") { request in
            HTTPResponse(status: .ok, headers: ["X-Echo": request.query["v"] ?? ""], body: Array("ok".utf8))
        }
        router.on(.get, "/peer") { request in .text(request.peer.description) }
        router.on(.get, "/private", access: .restricted) { _ in .text("operators only") }
        router.on(.post, "/private-post", access: .restricted) { _ in .text("posted") }
        router.on(.post, "/public-post") { _ in .text("posted") }
        router.on(.get, "/tagged") { request in CachedResponse(json: Array("{}".utf8), headers: ["Cache-Control": "max-age=60"]).response(for: request) }
        router.on(.get, "/peer-async") { request async in .text(request.peer.description) }
        router.on(.get, "/fail-http") { _ in throw HTTPError(.unprocessableContent, "coordinates outside coverage") }
        router.on(.get, "/fail-other") { _ async throws -> HTTPResponse in throw Oops() }
        let (closes, sockets) = (self.closes, self.sockets)
        router.webSocket("/socket") { request in
            if request.query["refuse"] != nil { return .refuse(.error(.unauthorized, "no key")) }
            // The query names who the socket counts as (a route works it out; the tests choose it).
            let client = request.query["client"].flatMap { IPAddress($0) } ?? request.peer
            return .accept(client: client) { socket in EchoHandler(socket, closes: closes, sockets: sockets) }
        }
        var logger = Logger(label: "test.http")
        logger.logLevel = .critical
        server = try HTTPServer(configuration: configuration, router: router, logger: logger, metrics: registry)
        try server.start()
    }

    func client() throws -> RawClient { try RawClient(port: port) }

    /// Sends one request on a new connection and reads the response.
    func get(_ target: String) throws -> RawResponse {
        let client = try client()
        try client.send("GET \(target) HTTP/1.1\r\nHost: test\r\n\r\n")
        return try client.readResponse()
    }

    func stop() { server.stop() }

    /// Polls `condition` until it holds or `seconds` pass. For waiting on the server's own timers, not for
    /// papering over races: every caller asserts the result.
    static func eventually(within seconds: Double = 10, _ condition: () -> Bool) -> Bool {
        let deadline = Double(DispatchTime.now().uptimeNanoseconds) / 1e9 + seconds
        while Double(DispatchTime.now().uptimeNanoseconds) / 1e9 < deadline {
            if condition() { return true }
            usleep(2_000)
        }
        return condition()
    }
}

/// A latch async handlers wait on until the test opens it.
final class Gate: Sendable {
    private struct State {
        var open = false
        var waiters: [CheckedContinuation<Void, Never>] = []
        var arrived = 0
    }

    private let state = Mutex(State())

    func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let resumeNow = state.withLock { state -> Bool in
                state.arrived += 1
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }

    /// How many handlers have reached the gate.
    var arrived: Int { state.withLock { $0.arrived } }

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters.removeAll() }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

/// The WebSocket route's handler: echoes each message; `close` closes with 1000, `flood` sends 10 MB without waiting,
/// `all:` sends the rest to every open socket.
final class EchoHandler: WebSocketHandler {
    private let closes: CloseLog
    private let sockets: SocketRegistry
    private let socket: WebSocket

    init(_ socket: WebSocket, closes: CloseLog, sockets: SocketRegistry) {
        self.socket = socket
        self.closes = closes
        self.sockets = sockets
        sockets.add(socket)
    }

    func received(_ message: WebSocketMessage, on socket: WebSocket) {
        switch message {
        case .text("close"):
            socket.close(.normal, reason: "asked to")
        case .text("flood"):
            let kilobyte = String(repeating: "x", count: 1024)
            for _ in 0..<10_000 { socket.send(.text(kilobyte)) }
        case .text(let text) where text.hasPrefix("all:"):
            WebSocket.send(.text(String(text.dropFirst(4))), to: sockets.all)
        case .text("later"):
            // From another thread: through the loop's inbox.
            Task.detached { socket.send(.text("from a task")) }
        default:
            socket.send(message)
        }
    }

    func closed(_ code: WebSocketCloseCode?) {
        sockets.remove(socket)
        closes.append(code?.rawValue ?? 0)
    }
}

/// Open sockets.
final class SocketRegistry: Sendable {
    private let sockets = Mutex<[ObjectIdentifier: WebSocket]>([:])

    func add(_ socket: WebSocket) { sockets.withLock { $0[ObjectIdentifier(socket)] = socket } }
    func remove(_ socket: WebSocket) { _ = sockets.withLock { $0.removeValue(forKey: ObjectIdentifier(socket)) } }
    var all: [WebSocket] { sockets.withLock { Array($0.values) } }
}

/// Close codes as handlers were told them, in order.
final class CloseLog: Sendable {
    private let codes = Mutex<[UInt16]>([])

    func append(_ code: UInt16) { codes.withLock { $0.append(code) } }
    var all: [UInt16] { codes.withLock { $0 } }
}
