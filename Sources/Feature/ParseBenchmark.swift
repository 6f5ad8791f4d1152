/// A parser of the feature's upstream as `pier bench-parse` times it: on every file of `folder` whose name ends
/// in `suffix` (the parser's own test fixtures), `iterations` parses a page.
public struct ParseBenchmark: Sendable {
    public var name: String
    /// What the result counts (`routes`, `lakes`, `series`).
    public var unit: String
    public var folder: String
    public var suffix: String
    public var iterations: Int
    /// Parses a page and counts what it found.
    public var parse: @Sendable ([UInt8]) throws -> Int

    public init(
        _ name: String, unit: String, folder: String, suffix: String, iterations: Int = 2000, parse: @escaping @Sendable ([UInt8]) throws -> Int
    ) {
        self.name = name
        self.unit = unit
        self.folder = folder
        self.suffix = suffix
        self.iterations = iterations
        self.parse = parse
    }
}
