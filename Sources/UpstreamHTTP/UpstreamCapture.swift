import Foundation
import Parsing
import Synchronization

/// Every upstream answer of one fetch run, kept as received: `NNN.body` (the bytes after content decoding)
/// with `NNN.json` beside it (URL, status, headers, time, or the transport error), and `run.json` (source,
/// outcome, error). Made to turn a broken scrape into a fixture, and read back by `pier … --replay DIR`.
///
/// A capture is attached to the fetching task (``current``): ``UpstreamClient`` records into whichever
/// capture its caller's task carries, so concurrent runs of different sources never mix.
public final class UpstreamCapture: Sendable {
    /// One upstream answer (or failure) as written to `NNN.json`.
    public struct Exchange: Codable, Sendable, Equatable {
        public var url: String
        /// `nil` when no HTTP answer came (timeout, refused connection).
        public var status: Int?
        public var headers: [String: String]
        /// ISO 8601, whole seconds.
        public var receivedAt: String
        public var error: String?
        /// The body's file name beside this one, `nil` without a body.
        public var body: String?
    }

    /// The summary written to `run.json`.
    public struct Run: Codable, Sendable, Equatable {
        public var source: String
        public var outcome: String
        public var error: String?
        public var startedAt: String
        public var exchanges: Int
    }

    /// An exchange read back with its body.
    public struct Recorded: Sendable {
        public var exchange: Exchange
        public var body: [UInt8]
    }

    @TaskLocal public static var current: UpstreamCapture?

    private let exchanges = Mutex<[Recorded]>([])
    public let startedAt: Date

    public init(startedAt: Date = Date()) {
        self.startedAt = startedAt
    }

    public var recorded: [Recorded] { exchanges.withLock { $0 } }

    func record(url: String, status: Int?, headers: [String: String], body: [UInt8], error: String?) {
        let exchange = Exchange(
            url: url, status: status, headers: headers, receivedAt: Timestamp.iso8601(Date()), error: error, body: nil)
        exchanges.withLock { $0.append(Recorded(exchange: exchange, body: body)) }
    }

    /// Writes the exchanges and `run.json` into `directory` (created if needed).
    public func write(to directory: URL, source: String, outcome: String, error: String?) throws {
        let manager = FileManager.default
        try manager.createDirectory(at: directory, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let all = recorded
        for (index, recorded) in all.enumerated() {
            let name = String(format: "%03d", index + 1)
            var exchange = recorded.exchange
            if exchange.status != nil {
                exchange.body = "\(name).body"
                try Data(recorded.body).write(to: directory.appendingPathComponent("\(name).body"))
            }
            try encoder.encode(exchange).write(to: directory.appendingPathComponent("\(name).json"))
        }
        let run = Run(source: source, outcome: outcome, error: error, startedAt: Timestamp.iso8601(startedAt), exchanges: all.count)
        try encoder.encode(run).write(to: directory.appendingPathComponent("run.json"))
    }

    /// Reads every `NNN.json` (and its body) of a capture folder, in order; a folder without any is an error.
    public static func read(from directory: URL) throws -> [Recorded] {
        let manager = FileManager.default
        let names = try manager.contentsOfDirectory(atPath: directory.path)
            .filter { $0.hasSuffix(".json") && $0 != "run.json" }.sorted()
        let decoder = JSONDecoder()
        let recorded = try names.map { name -> Recorded in
            let exchange = try decoder.decode(Exchange.self, from: Data(contentsOf: directory.appendingPathComponent(name)))
            let body = try exchange.body.map { [UInt8](try Data(contentsOf: directory.appendingPathComponent($0))) } ?? []
            return Recorded(exchange: exchange, body: body)
        }
        guard !recorded.isEmpty else { throw CocoaError(.fileReadNoSuchFile, userInfo: [NSFilePathErrorKey: directory.path]) }
        return recorded
    }
}
