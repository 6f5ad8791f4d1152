import Foundation

/// The recorded upstream pages tests serve and parse.
///
/// Looks in `PIER_FIXTURES_DIR` (another set of pages of the same shapes, to try the parsers on), else in the
/// repository's own `Tests/Fixtures`.
public enum Fixtures {
    /// One page and the parse result it must give.
    public struct Page: Sendable {
        public var name: String
        public var body: [UInt8]
        public var expected: Data
    }

    /// This repository's own fixture folder.
    public static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tests/Fixtures")

    public static let root: URL = {
        let repository = repositoryRoot.deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [
            ProcessInfo.processInfo.environment["PIER_FIXTURES_DIR"].map { URL(fileURLWithPath: $0) },
            repository.appendingPathComponent("Tests/Fixtures"),
        ].compactMap { $0 }
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("zsg").path) }
            ?? repository.appendingPathComponent("Tests/Fixtures")
    }()

    /// The bytes of `folder/name`, from ``root`` or else from this repository's own fixtures.
    public static func bytes(_ folder: String, _ name: String) throws -> [UInt8] {
        let shared = root.appendingPathComponent(folder).appendingPathComponent(name)
        let own = repositoryRoot.appendingPathComponent(folder).appendingPathComponent(name)
        return Array(try Data(contentsOf: FileManager.default.fileExists(atPath: shared.path) ? shared : own))
    }

    /// Every transport.opendata.ch stationboard in `transport/` (`stationboard-<id>-<date>.json`), sorted by name.
    public static func stationboards() throws -> [(date: String, body: [UInt8])] {
        let directory = root.appendingPathComponent("transport")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return try names.filter { $0.hasPrefix("stationboard-") && $0.hasSuffix(".json") }.sorted().map { name in
            (String(name.dropLast(".json".count).suffix(10)), Array(try Data(contentsOf: directory.appendingPathComponent(name))))
        }
    }

    /// Every `NAME.html` in `folder` that has a `NAME.expected.json`, sorted by name.
    public static func pages(_ folder: String) throws -> [Page] {
        let directory = root.appendingPathComponent(folder)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        return try names.filter { $0.hasSuffix(".html") }.compactMap { name in
            let stem = String(name.dropLast(".html".count))
            let expected = directory.appendingPathComponent(stem + ".expected.json")
            guard FileManager.default.fileExists(atPath: expected.path) else { return nil }
            return Page(
                name: stem, body: Array(try Data(contentsOf: directory.appendingPathComponent(name))),
                expected: try Data(contentsOf: expected))
        }
    }
}
