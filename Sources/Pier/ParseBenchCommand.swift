import ArgumentParser
import Feature
import Foundation

/// `pier bench-parse`: how long each upstream's parser takes per page (for `scripts/bench`; hidden from help).
struct ParseBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-parse", abstract: "Time the upstreams' parsers on saved pages.", shouldDisplay: false)

    @Argument(help: "A parser (\(Features.parsers.map(\.name).joined(separator: ", "))); all of them on their fixtures when omitted.")
    var parser: String?

    @Argument(help: "Pages to parse (default: the parser's own fixtures).")
    var files: [String] = []

    @Option(help: "Parses per page (default: the parser's own).")
    var iterations: Int?

    @Flag(help: "Only list the parsers the features bring, one name a line (their fuzz targets bear the same names).")
    var list = false

    func run() throws {
        if list { return Features.parsers.forEach { print($0.name) } }
        let chosen = Features.parsers.filter { parser == nil || $0.name == parser }
        guard !chosen.isEmpty else { throw ValidationError("no parser \(parser ?? "")") }
        for benchmark in chosen {
            for path in try files.isEmpty ? fixtures(of: benchmark) : files {
                let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
                let (microseconds, count) = try measure(iterations: iterations ?? benchmark.iterations) { try benchmark.parse(bytes) }
                print(line(benchmark.name, path, bytes.count, microseconds, "\(count) \(benchmark.unit)"))
            }
        }
    }

    private func fixtures(of benchmark: ParseBenchmark) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: benchmark.folder).filter { $0.hasPrefix(benchmark.prefix) && $0.hasSuffix(benchmark.suffix) && !$0.contains(".expected.") }.sorted()
            .map { benchmark.folder + "/" + $0 }
    }

    /// The median of ten batches, in microseconds per parse, and the last result.
    private func measure(iterations: Int, _ parse: () throws -> Int) throws -> (Double, Int) {
        var result = try parse()
        var batches: [Double] = []
        let perBatch = max(1, iterations / 10)
        for _ in 0..<10 {
            let start = ContinuousClock.now
            for _ in 0..<perBatch { result = try parse() }
            let elapsed = ContinuousClock.now - start
            batches.append((Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12) / Double(perBatch))
        }
        return (batches.sorted()[batches.count / 2], result)
    }

    private func line(_ parser: String, _ path: String, _ bytes: Int, _ microseconds: Double, _ result: String) -> String {
        let name = URL(fileURLWithPath: path).lastPathComponent
        let label = "parse \(parser)".padding(toLength: 18, withPad: " ", startingAt: 0)
            + name.padding(toLength: 40, withPad: " ", startingAt: 0)
        return label + String(format: " %8d bytes %9.1f us/page  ", bytes, microseconds) + "(\(result))"
    }
}
