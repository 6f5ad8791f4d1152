import ArgumentParser
import Foundation
import Lakes
import Ships
import Weather

/// `pier bench-parse`: how long the scrapers take per page (for `scripts/bench`; hidden from help).
struct ParseBenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-parse", abstract: "Time the ZSG and MeteoNews parsers on saved pages.", shouldDisplay: false)

    @Option(parsing: .upToNextOption, help: "ZSG day pages.")
    var zsg: [String] = []

    @Option(parsing: .upToNextOption, help: "MeteoNews lake pages.")
    var meteonews: [String] = []

    @Option(parsing: .upToNextOption, help: "FMI timevaluepair documents.")
    var fmi: [String] = []

    @Option(help: "Parses per page.")
    var iterations = 2000

    func run() throws {
        for path in zsg {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            let (microseconds, count) = try measure { try ZSGPageParser.parse(bytes).count }
            print(line("zsg", path, bytes.count, microseconds, "\(count) routes"))
        }
        for path in meteonews {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            let (microseconds, count) = try measure { try MeteoNewsPageParser.parse(bytes).count }
            print(line("meteonews", path, bytes.count, microseconds, "\(count) lakes"))
        }
        for path in fmi {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            let (microseconds, count) = try measure(iterations: 50) { try FMIDocumentParser.parse(bytes).count }
            print(line("fmi", path, bytes.count, microseconds, "\(count) series"))
        }
    }

    /// The median of ten batches, in microseconds per parse, and the last result.
    private func measure(iterations: Int? = nil, _ parse: () throws -> Int) throws -> (Double, Int) {
        var result = try parse()
        var batches: [Double] = []
        let perBatch = max(1, (iterations ?? self.iterations) / 10)
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
        let label = "parse \(parser)".padding(toLength: 16, withPad: " ", startingAt: 0)
            + name.padding(toLength: 40, withPad: " ", startingAt: 0)
        return label + String(format: " %8d bytes %9.1f us/page  ", bytes, microseconds) + "(\(result))"
    }
}
