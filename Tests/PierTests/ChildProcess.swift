import Foundation

/// Programs the end-to-end tests run to completion (`pier routes`, `pier fetch`, schemathesis, the generated
/// client's check), and where the repository is.
enum ChildProcess {
    /// The repository root (this file is Tests/PierTests/ChildProcess.swift).
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Runs a program to completion; its output goes to a file (a pipe could fill and stall it).
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, output: String) {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("pier-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let handle = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        // A Python child (the apps' flows in a module's Testing/ folder) writes no bytecode beside its sources.
        process.environment = ProcessInfo.processInfo.environment.merging(["PYTHONDONTWRITEBYTECODE": "1"]) { $1 }.merging(environment) { $1 }
        process.standardOutput = handle
        process.standardError = handle
        // In a scratch folder: schemathesis keeps a cache (.schemathesis/) in its working directory.
        process.currentDirectoryURL = FileManager.default.temporaryDirectory
        try process.run()
        process.waitUntilExit()
        try handle.close()
        return (process.terminationStatus, (try? String(contentsOf: log, encoding: .utf8)) ?? "")
    }
}
