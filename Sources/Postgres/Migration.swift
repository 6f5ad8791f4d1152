/// One file of `Migrations/`: `NNNN_description.sql`.
public struct Migration: Sendable, Equatable {
    public let version: Int
    public let name: String
    public let sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }

    /// Parses `0001_initial.sql` into version 1, name `initial`; nil for any other file name.
    public static func parse(fileName: String) -> (version: Int, name: String)? {
        guard fileName.hasSuffix(".sql") else { return nil }
        let stem = fileName.dropLast(4)
        guard let underscore = stem.firstIndex(of: "_") else { return nil }
        let digits = stem[..<underscore]
        let name = stem[stem.index(after: underscore)...]
        guard digits.count == 4, digits.allSatisfy(\.isASCII), let version = Int(digits), !name.isEmpty else { return nil }
        return (version, String(name))
    }
}
