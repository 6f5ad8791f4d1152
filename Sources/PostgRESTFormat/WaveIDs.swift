import Parsing

/// `wave_checkin_counts(wave_ids)`'s argument as what it means: the distinct wave ids, sorted — so two bodies that name
/// the same waves (padded, reordered, repeated) are one key for the answers held — and bounded by what a board can ask.
public struct WaveIDs: Hashable, Sendable {
    public static let function = "wave_checkin_counts"
    /// Waves one ask may name (a day's departures at a station).
    public static let maximumWaves = 500
    /// A wave id's longest form in bytes.
    public static let maximumWaveBytes = 200
    /// The largest body read: every wave id at its longest, quoted and separated, and room for the member's name and a
    /// little whitespace. A body bigger than its argument can need is refused unread (padding costs its sender).
    public static let maximumBody = maximumWaves * (maximumWaveBytes + 4) + 1024

    public let ids: [String]

    public init<S: Sequence>(_ asked: S) where S.Element == String {
        ids = Array(Set(asked)).sorted()
    }

    /// The ids a request's body names, or its refusal in PostgREST's shape.
    public init(body: [UInt8]) throws(PostgRESTError) {
        try Self.checkSize(body.count)
        let arguments = try PostgRESTArguments.parse(body, function: Self.function, allowed: ["wave_ids"])
        guard let list = arguments["wave_ids"]?.elements else { throw PostgRESTArguments.invalid("wave_ids", "a list of wave ids") }
        guard list.count <= Self.maximumWaves else { throw PostgRESTArguments.invalid("wave_ids", "at most \(Self.maximumWaves) wave ids") }
        var waves: [String] = []
        waves.reserveCapacity(list.count)
        for element in list {
            guard let wave = element.string, !wave.isEmpty, wave.utf8.count <= Self.maximumWaveBytes else {
                throw PostgRESTArguments.invalid("wave_ids", "wave ids of 1 to \(Self.maximumWaveBytes) bytes")
            }
            waves.append(wave)
        }
        self.init(waves)
    }

    /// Refuses a body of `bytes` bigger than the argument can need, before anything else is looked at.
    public static func checkSize(_ bytes: Int) throws(PostgRESTError) {
        guard bytes <= maximumBody else {
            throw PostgRESTError(status: 413, code: "PGRST413", message: "the arguments of \(function) take at most \(maximumBody) bytes")
        }
    }

    /// What holding it costs: its ids' bytes and each string's own storage.
    public var bytes: Int { ids.reduce(MemoryLayout<[String]>.size) { $0 + $1.utf8.count + MemoryLayout<String>.size } }
}
