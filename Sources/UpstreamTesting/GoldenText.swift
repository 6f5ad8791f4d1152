import Foundation

/// The bytes Pier writes for its clients, held to recorded ones (`Tests/Golden/Writers/<name>.txt`): a test writes the
/// bodies of its module's writers for fixed values — escapes, `null`s, whole and fractional numbers — one per line, and
/// they must be the recorded ones. `PIER_GOLDEN_RECORD=1` writes the files anew (after a change meant to be seen by
/// clients; say so in the contract). Like the route-level answers (`Tests/Golden/*.http`), but for what no route
/// shows the same way twice (times move).
public enum GoldenText {
    public static let folder = Fixtures.repositoryRoot.deletingLastPathComponent().appendingPathComponent("Golden/Writers")

    /// The recorded text of `name` (what `cases` gives, when recording), and what `cases` gives now.
    public static func compare(_ name: String, _ cases: [(String, String)]) throws -> (recorded: String, now: String) {
        let now = cases.map { "\($0.0): \($0.1)" }.joined(separator: "\n") + "\n"
        let file = folder.appendingPathComponent(name + ".txt")
        if ProcessInfo.processInfo.environment["PIER_GOLDEN_RECORD"] == "1" {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data(now.utf8).write(to: file)
        }
        return (try String(contentsOf: file, encoding: .utf8), now)
    }
}
