import Glibc
import Parsing

/// `wave_checkin_counts(wave_ids)`'s argument as what it means: the distinct wave ids, sorted by their bytes — so two
/// bodies that name the same waves (padded, reordered, repeated) are one key for the answers held — and bounded by what
/// a board can ask. The key is the ids' bytes, each after its length, in one array: hashed as one run of bytes, and
/// read without building a string on the apps' usual body (ASCII ids, no escapes), which every phone at a board sends.
public struct WaveIDs: Hashable, Sendable {
    public static let function = "wave_checkin_counts"
    /// Waves one ask may name (a day's departures at a station).
    public static let maximumWaves = 500
    /// A wave id's longest form in bytes.
    public static let maximumWaveBytes = 200
    /// The largest body read: every wave id at its longest, quoted and separated, and room for the member's name and a
    /// little whitespace. A body bigger than its argument can need is refused unread (padding costs its sender).
    public static let maximumBody = maximumWaves * (maximumWaveBytes + 4) + 1024

    /// Each id's length (one byte: at most 200) and bytes, the ids distinct and in the order of their bytes.
    public let key: [UInt8]
    /// How many ids.
    public let count: Int

    public init<S: Sequence>(_ asked: S) where S.Element == String {
        self.init(sorting: asked.map { Array($0.utf8) })
    }

    private init(sorting ids: [[UInt8]]) {
        var sorted = ids.sorted { $0.lexicographicallyPrecedes($1) }
        sorted = sorted.enumerated().filter { $0.offset == 0 || sorted[$0.offset - 1] != $0.element }.map(\.element)
        var key: [UInt8] = []
        key.reserveCapacity(sorted.reduce(0) { $0 + $1.count + 1 })
        for id in sorted {
            key.append(UInt8(truncatingIfNeeded: id.count))
            key.append(contentsOf: id)
        }
        self.key = key
        count = sorted.count
    }

    /// The ids a request's body names, or its refusal in PostgREST's shape.
    public init(body: [UInt8]) throws(PostgRESTError) {
        try Self.checkSize(body.count)
        if let fast = Self.plain(body) {
            self = fast
            return
        }
        try self.init(reading: body)
    }

    /// The body read by the general JSON reader only (what the one-pass reader must agree with: the fuzz target's
    /// property).
    public init(reading body: [UInt8]) throws(PostgRESTError) {
        try Self.checkSize(body.count)
        let arguments = try PostgRESTArguments.parse(body, function: Self.function, allowed: ["wave_ids"])
        guard let list = arguments["wave_ids"]?.elements else { throw PostgRESTArguments.invalid("wave_ids", "a list of wave ids") }
        guard list.count <= Self.maximumWaves else { throw Self.tooMany }
        var waves: [[UInt8]] = []
        waves.reserveCapacity(list.count)
        for element in list {
            guard let wave = element.string, !wave.isEmpty, wave.utf8.count <= Self.maximumWaveBytes else { throw Self.badLength }
            waves.append(Array(wave.utf8))
        }
        self.init(sorting: waves)
    }

    /// The ids, as text (what PostgreSQL is asked for).
    public var ids: [String] {
        var ids: [String] = []
        ids.reserveCapacity(count)
        var index = 0
        while index < key.count {
            let length = Int(key[index])
            ids.append(String(decoding: key[(index + 1)..<(index + 1 + length)], as: UTF8.self))
            index += 1 + length
        }
        return ids
    }

    /// Refuses a body of `bytes` bigger than the argument can need, before anything else is looked at.
    public static func checkSize(_ bytes: Int) throws(PostgRESTError) {
        try PostgRESTArguments.checkSize(bytes, function: function, maximum: maximumBody)
    }

    /// What holding it costs.
    public var bytes: Int { key.count + MemoryLayout<Self>.size }

    public func hash(into hasher: inout Hasher) {
        key.withUnsafeBytes { hasher.combine(bytes: $0) }
    }

    private static let tooMany = PostgRESTArguments.invalid("wave_ids", "at most \(maximumWaves) wave ids")
    private static let badLength = PostgRESTArguments.invalid("wave_ids", "wave ids of 1 to \(maximumWaveBytes) bytes")

    /// The apps' body read in one pass: `{"wave_ids":[…]}` with whitespace anywhere JSON allows it, the ids printable
    /// ASCII without escapes. `nil` for anything else — then the full JSON reader decides (the fuzz target checks that
    /// both read the same ids). An id of the wrong length, or too many, is `nil` too: the full reader words the refusal.
    private static func plain(_ body: [UInt8]) -> WaveIDs? {
        body.withUnsafeBufferPointer { bytes -> WaveIDs? in
            guard let base = bytes.baseAddress else { return nil }
            var scanner = PlainScanner(bytes: bytes)
            guard scanner.expect(0x7B), scanner.expect(0x22), let name = scanner.string(), name.count == 8,
                  memcmp(base + name.lowerBound, "wave_ids", 8) == 0, scanner.expect(0x3A), scanner.expect(0x5B) else { return nil }
            var ranges: [Range<Int>] = []
            ranges.reserveCapacity(64)
            if !scanner.expect(0x5D) {
                while true {
                    guard scanner.expect(0x22), let id = scanner.string(), (1...maximumWaveBytes).contains(id.count), ranges.count < maximumWaves else {
                        return nil
                    }
                    ranges.append(id)
                    if scanner.expect(0x2C) { continue }
                    guard scanner.expect(0x5D) else { return nil }
                    break
                }
            }
            guard scanner.expect(0x7D), scanner.atEnd() else { return nil }
            // A board asks in departure order, which is mostly the ids' own: sorted only when it is not.
            func precedes(_ a: Range<Int>, _ b: Range<Int>) -> Bool {
                let order = memcmp(base + a.lowerBound, base + b.lowerBound, min(a.count, b.count))
                return order < 0 || order == 0 && a.count < b.count
            }
            if zip(ranges, ranges.dropFirst()).contains(where: { !precedes($0, $1) }) { ranges.sort(by: precedes) }
            var key: [UInt8] = []
            key.reserveCapacity(ranges.reduce(0) { $0 + $1.count + 1 })
            var count = 0
            var previous: Range<Int>?
            for range in ranges {
                if let previous, previous.count == range.count, memcmp(base + previous.lowerBound, base + range.lowerBound, range.count) == 0 { continue }
                key.append(UInt8(range.count))
                key.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[range]))
                previous = range
                count += 1
            }
            return WaveIDs(key: key, count: count)
        }
    }

    /// The one-pass reader's position in a body.
    private struct PlainScanner {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        mutating func skipSpace() {
            while index < bytes.count {
                let byte = bytes[index]
                guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
                index += 1
            }
        }

        /// Whether `byte` comes next, after any whitespace: consumed if so.
        mutating func expect(_ byte: UInt8) -> Bool {
            skipSpace()
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// A string's contents (the opening quote read): printable ASCII without escapes, else `nil`.
        mutating func string() -> Range<Int>? {
            let start = index
            while index < bytes.count {
                let byte = bytes[index]
                if byte == 0x22 {
                    index += 1
                    return start..<(index - 1)
                }
                guard byte >= 0x20, byte < 0x7F, byte != 0x5C else { return nil }
                index += 1
            }
            return nil
        }

        /// Whether only whitespace is left.
        mutating func atEnd() -> Bool {
            skipSpace()
            return index == bytes.count
        }
    }

    private init(key: [UInt8], count: Int) {
        self.key = key
        self.count = count
    }
}
