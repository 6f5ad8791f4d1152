import DatabaseTesting
import Foundation
import HTTPTesting
import XCTest

/// The real `pier` executable started as a child process on a free port, its standard output captured.
final class PierProcess {
    let process = Process()
    let port: Int
    private let output = Pipe()
    private var captured = Data()

    /// The built `pier` binary beside the test bundle.
    static var binary: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("pier")
    }

    /// `database` (fresh per test) is passed as DATABASE_URL along with the project's migrations.
    init(arguments: [String] = ["serve"], database: TestDatabase?, environment: [String: String] = [:]) throws {
        port = try Self.freePort()
        process.executableURL = Self.binary
        process.arguments = arguments
        // The test run's own PIER_* variables (scripts/test's: the cluster's, the tools') are not pier's settings.
        var env = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("PIER_") }
        env["PORT"] = String(port)
        env["HOST"] = "127.0.0.1"
        env["DATABASE_URL"] = database?.childURL
        env["PIER_MIGRATIONS_DIR"] = Self.migrationsDirectory
        for (key, value) in environment { env[key] = value }
        process.environment = env
        process.standardOutput = output
        try process.run()
    }

    deinit {
        if process.isRunning { process.terminate() }
    }

    /// Polls until `/health` answers or the process dies; asserts by returning false.
    func waitUntilServing(within seconds: Double = 20) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline && process.isRunning {
            if let client = try? RawClient(port: port),
                (try? client.send("GET /health HTTP/1.1\r\nHost: t\r\n\r\n")) != nil,
                let response = try? client.readResponse(), response.status == 200 {
                return true
            }
            usleep(20_000)
        }
        return false
    }

    /// Sends a signal and waits for the exit status.
    /// One series' value from `/metrics` (`name{labels}` exactly as rendered), `nil` when it is not there.
    func metric(_ series: String) throws -> Double? {
        let text = try RawClient.request(port: port, "/metrics").bodyText
        return text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
    }

    func stop(signal: Int32 = SIGTERM) -> Int32 {
        kill(process.processIdentifier, signal)
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Everything written to standard output (call after the process exited).
    func standardOutput() -> String {
        captured.append(output.fileHandleForReading.readDataToEndOfFile())
        return String(decoding: captured, as: UTF8.self)
    }

    static var migrationsDirectory: String {
        ChildProcess.repositoryRoot.appendingPathComponent("Migrations").path
    }

    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard bound else { throw RawClient.Failure.system("bind", errno) }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
