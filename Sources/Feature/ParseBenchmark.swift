/// A parser of the feature's upstream as `pier bench-parse` times it: on every file of `folder` whose name starts with
/// `prefix` and ends in `suffix` (the parser's own test fixtures; the `.expected.` answers beside them are Pier's, not
/// the upstream's, and are left out), `iterations` parses a page. Its name is its fuzz target's (`fuzz/targets/<name>`).
/// A feature lists its own (``Feature/parsers``).
public struct ParseBenchmark: Sendable {
    public var name: String
    /// What the result counts (`routes`, `lakes`, `series`).
    public var unit: String
    public var folder: String
    public var prefix: String
    public var suffix: String
    public var iterations: Int
    /// Parses a page and counts what it found.
    public var parse: @Sendable ([UInt8]) throws -> Int

    public init(
        _ name: String, unit: String, folder: String, prefix: String = "", suffix: String, iterations: Int = 2000, parse: @escaping @Sendable ([UInt8]) throws -> Int
    ) {
        self.name = name
        self.unit = unit
        self.folder = folder
        self.prefix = prefix
        self.suffix = suffix
        self.iterations = iterations
        self.parse = parse
    }
}
