import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Apple's push service played by `apns_standin.py` (beside this file): HTTP/2 over TLS with a test CA, checking the
/// provider token, topic, push type, device token and payload as APNs does, one stream per connection until the first
/// success. Runs under the tests' Python (`PIER_PYTHON`, which `scripts/test` sets up with h2 and trustme).
public final class APNsStandIn: @unchecked Sendable {
    public struct Push: Decodable, Sendable, Equatable {
        public var token: String
        public var topic: String?
        public var push_type: String?
        public var priority: String?
        public var expiration: String?
        public var collapse_id: String?
        public var status: Int
        public var reason: String?
        /// The payload as sent (JSON text).
        public var payload: String
        /// When it was answered (seconds since 1970) and over which connection (1 for the first one made).
        public var at: Double
        public var connection: Int
    }

    public struct Stats: Decodable, Sendable {
        public var connections: Int
        public var max_streams_seen: Int
        public var tokens_seen: Int
        public var pushes: Int
    }

    public enum Failure: Error, CustomStringConvertible {
        case noPython
        case didNotStart(String)

        public var description: String {
            switch self {
            case .noPython: "PIER_PYTHON is not set: run the tests through scripts/test (it installs h2 and trustme)"
            case .didNotStart(let output): "the APNs stand-in did not start: \(output)"
            }
        }
    }

    public let directory: URL
    /// `https://127.0.0.1:<port>`, for both environments.
    public let origin: String
    /// The test CA's certificate (PEM), for `PIER_APNS_CA_FILE`.
    public let caFile: String
    private let controlPort: Int
    private let process: Process

    /// Starts the stand-in for a provider key (`publicKeyPEM`, its id and team) and an app's topic.
    public init(keyID: String, teamID: String, topic: String, publicKeyPEM: String) throws {
        guard let python = ProcessInfo.processInfo.environment["PIER_PYTHON"] else { throw Failure.noPython }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("pier-apns-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let keyPath = directory.appendingPathComponent("provider-public.pem")
        try publicKeyPEM.write(to: keyPath, atomically: true, encoding: .utf8)
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("apns_standin.py").path
        process = Process()
        process.executableURL = URL(fileURLWithPath: python).appendingPathComponent("python")
        process.arguments = [script, "--dir", directory.path, "--key-id", keyID, "--team-id", teamID, "--topic", topic, "--public-key", keyPath.path]
        let log = directory.appendingPathComponent("standin.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let output = try FileHandle(forWritingTo: log)
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let portsFile = directory.appendingPathComponent("ports")
        let deadline = Date().addingTimeInterval(30)
        while !FileManager.default.fileExists(atPath: portsFile.path) {
            guard process.isRunning, Date() < deadline else {
                process.terminate()
                throw Failure.didNotStart((try? String(contentsOf: log, encoding: .utf8)) ?? "")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        let ports = try String(contentsOf: portsFile, encoding: .utf8).split(separator: " ").compactMap { Int($0) }
        guard ports.count == 2 else { throw Failure.didNotStart("ports file: \(ports)") }
        origin = "https://127.0.0.1:\(ports[0])"
        controlPort = ports[1]
        caFile = directory.appendingPathComponent("ca.pem").path
    }

    deinit {
        stop()
    }

    public func stop() {
        if process.isRunning {
            // SIGKILL, not terminate(): a process started from a concurrency thread inherits its blocked signals
            // (SIGTERM among them), and the stand-in keeps nothing worth a clean exit.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Every push taken so far, in the order answered.
    public func received() throws -> [Push] {
        let text = try control("GET", "/received")
        return try text.split(separator: UInt8(ascii: "\n")).map { try JSONDecoder().decode(Push.self, from: Data($0)) }
    }

    public func stats() throws -> Stats {
        try JSONDecoder().decode(Stats.self, from: Data(try control("GET", "/stats")))
    }

    /// Answers for a token's next pushes (`"*"`: any token), e.g. `[["status": 410, "reason": "Unregistered", "timestamp": …]]`.
    public func script(_ token: String, _ answers: [[String: any Sendable]]) throws {
        let body = try JSONSerialization.data(withJSONObject: [token: answers])
        _ = try control("POST", "/script", body: Array(body))
    }

    /// Every answer waits `milliseconds` (a slow APNs).
    public func delay(milliseconds: Int) throws {
        _ = try control("POST", "/delay", body: Array(#"{"ms":\#(milliseconds)}"#.utf8))
    }

    public func reset() throws {
        _ = try control("POST", "/reset")
    }

    /// One request on the control port (HTTP/1.1, Connection: close).
    private func control(_ method: String, _ path: String, body: [UInt8] = []) throws -> [UInt8] {
        let url = URL(string: "http://127.0.0.1:\(controlPort)\(path)")
        var request = URLRequest(url: url ?? URL(fileURLWithPath: "/"))
        request.httpMethod = method
        if !body.isEmpty { request.httpBody = Data(body) }
        let result = ControlResult()
        let done = DispatchSemaphore(value: 0)
        URLSession.shared.dataTask(with: request) { data, _, error in
            result.set(data.map(Array.init), error)
            done.signal()
        }.resume()
        done.wait()
        return try result.get()
    }
}

private final class ControlResult: @unchecked Sendable {
    private var data: [UInt8]?
    private var error: (any Error)?
    private let lock = NSLock()

    func set(_ data: [UInt8]?, _ error: (any Error)?) {
        lock.withLock {
            self.data = data
            self.error = error
        }
    }

    func get() throws -> [UInt8] {
        try lock.withLock {
            if let error { throw error }
            return data ?? []
        }
    }
}
