/// Reads one CBOR item (RFC 8949) from bytes, by hand: App Attest's attestation objects and assertions are small
/// and use a handful of major types, so no library is needed — but they come from the network, so everything is
/// bounded: definite lengths only, nesting at most ``maximumDepth``, every length checked against what is left
/// (a declared length can never allocate more than the input holds), items at most ``maximumItems`` in all.
public struct CBORDecoder {
    public static let maximumDepth = 16
    public static let maximumItems = 10_000

    private let input: [UInt8]
    private var offset = 0
    private var items = 0

    /// The single item `bytes` hold (nothing may follow it).
    public static func decode(_ bytes: [UInt8]) throws(CBORError) -> CBOR {
        var decoder = CBORDecoder(input: bytes)
        let item = try decoder.item(depth: 0)
        guard decoder.offset == bytes.count else { throw .trailingBytes(at: decoder.offset) }
        return item
    }

    /// The first item of `bytes` and the offset after it (a COSE key inside authenticator data is followed by more).
    public static func decodePrefix(_ bytes: [UInt8]) throws(CBORError) -> (CBOR, end: Int) {
        var decoder = CBORDecoder(input: bytes)
        let item = try decoder.item(depth: 0)
        return (item, decoder.offset)
    }

    private init(input: [UInt8]) {
        self.input = input
    }

    private mutating func byte() throws(CBORError) -> UInt8 {
        guard offset < input.count else { throw .truncated(at: offset) }
        defer { offset += 1 }
        return input[offset]
    }

    /// `count` bytes as an unsigned big-endian integer.
    private mutating func integer(_ count: Int) throws(CBORError) -> UInt64 {
        guard input.count - offset >= count else { throw .truncated(at: offset) }
        var value: UInt64 = 0
        for index in offset..<offset + count { value = value << 8 | UInt64(input[index]) }
        offset += count
        return value
    }

    /// The argument of an initial byte's additional information.
    private mutating func argument(_ info: UInt8, at start: Int) throws(CBORError) -> UInt64 {
        switch info {
        case 0..<24: return UInt64(info)
        case 24: return try integer(1)
        case 25: return try integer(2)
        case 26: return try integer(4)
        case 27: return try integer(8)
        case 31: throw .indefiniteLength(at: start)
        default: throw .reserved(at: start)
        }
    }

    /// A length that the rest of the input can hold, each element taking at least `unit` bytes.
    private func length(_ value: UInt64, unit: Int, at start: Int) throws(CBORError) -> Int {
        let left = input.count - offset
        guard value <= UInt64(left / unit) else { throw .tooLong(at: start) }
        return Int(value)
    }

    private mutating func bytes(_ count: Int) -> [UInt8] {
        defer { offset += count }
        return Array(input[offset..<offset + count])
    }

    private mutating func item(depth: Int) throws(CBORError) -> CBOR {
        let start = offset
        guard depth <= Self.maximumDepth else { throw .tooDeep(at: start) }
        items += 1
        guard items <= Self.maximumItems else { throw .tooLong(at: start) }
        let initial = try byte()
        let major = initial >> 5
        let info = initial & 0x1F
        switch major {
        case 0:
            return .unsigned(try argument(info, at: start))
        case 1:
            return .negative(try argument(info, at: start))
        case 2:
            // One step at a time: the argument moves `offset`, which the length check then reads.
            let declared = try argument(info, at: start)
            let count = try length(declared, unit: 1, at: start)
            return .bytes(bytes(count))
        case 3:
            let declared = try argument(info, at: start)
            let count = try length(declared, unit: 1, at: start)
            guard let text = String(validating: input[offset..<offset + count], as: UTF8.self) else { throw .invalidText(at: start) }
            offset += count
            return .text(text)
        case 4:
            let declared = try argument(info, at: start)
            let count = try length(declared, unit: 1, at: start)
            var elements: [CBOR] = []
            elements.reserveCapacity(count)
            for _ in 0..<count { elements.append(try item(depth: depth + 1)) }
            return .array(elements)
        case 5:
            let declared = try argument(info, at: start)
            let count = try length(declared, unit: 2, at: start)
            var pairs: [(key: CBOR, value: CBOR)] = []
            pairs.reserveCapacity(count)
            for _ in 0..<count {
                let keyStart = offset
                let key = try item(depth: depth + 1)
                guard !pairs.contains(where: { $0.key == key }) else { throw .duplicateKey(at: keyStart) }
                pairs.append((key, try item(depth: depth + 1)))
            }
            return .map(pairs)
        case 6:
            let tag = try argument(info, at: start)
            return .tagged(tag, try item(depth: depth + 1))
        default:
            return try simple(info, at: start)
        }
    }

    /// Major type 7: simple values and floats.
    private mutating func simple(_ info: UInt8, at start: Int) throws(CBORError) -> CBOR {
        switch info {
        case 20: return .bool(false)
        case 21: return .bool(true)
        case 22: return .null
        case 23: return .undefined
        case 0..<20: return .simple(info)
        case 24:
            let value = try byte()
            // RFC 8949 §3.3: values below 32 must use the one-byte form.
            guard value >= 32 else { throw .reserved(at: start) }
            return .simple(value)
        case 25: return .float(Double(Float16Bits.value(UInt16(try integer(2)))))
        case 26: return .float(Double(Float(bitPattern: UInt32(try integer(4)))))
        case 27: return .float(Double(bitPattern: try integer(8)))
        case 31: throw .indefiniteLength(at: start)
        default: throw .reserved(at: start)
        }
    }
}

/// IEEE 754 half precision without `Float16` (not available on every platform Swift runs on).
enum Float16Bits {
    static func value(_ bits: UInt16) -> Float {
        let sign: Float = bits & 0x8000 == 0 ? 1 : -1
        let exponent = Int((bits >> 10) & 0x1F)
        let fraction = Float(bits & 0x03FF)
        switch exponent {
        case 0: return sign * fraction * Float(sign: .plus, exponent: -24, significand: 1)
        case 31: return fraction == 0 ? sign * .infinity : .nan
        default: return sign * (1 + fraction / 1024) * Float(sign: .plus, exponent: exponent - 15, significand: 1)
        }
    }
}
