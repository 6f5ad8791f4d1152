/// Checks UTF-8 a piece at a time (a text message's fragments, each checked as it arrives): no overlong forms, no
/// surrogates, nothing above U+10FFFF (RFC 3629). A message is valid when every piece was and it ends between
/// characters (``isComplete``).
public struct UTF8Validator: Sendable {
    /// Continuation bytes still expected for the current character.
    private var pending = 0
    /// The range the next continuation byte must be in (narrower right after a lead byte: overlongs, surrogates).
    private var low: UInt8 = 0x80
    private var high: UInt8 = 0xBF

    public init() {}

    /// Whether the bytes so far end between characters.
    public var isComplete: Bool { pending == 0 }

    /// Checks `bytes` following what came before; `false` at the first byte that cannot be UTF-8.
    public mutating func validate(_ bytes: some Sequence<UInt8>) -> Bool {
        for byte in bytes {
            guard validate(byte: byte) else { return false }
        }
        return true
    }

    /// ``validate(_:)`` of one byte (a query's escapes are checked as they are decoded).
    @inline(__always)
    public mutating func validate(byte: UInt8) -> Bool {
        if pending > 0 {
            guard (low...high).contains(byte) else { return false }
            pending -= 1
            (low, high) = (0x80, 0xBF)
            return true
        }
        switch byte {
        case 0x00...0x7F: return true
        case 0xC2...0xDF: pending = 1
        case 0xE0: (pending, low) = (2, 0xA0)
        case 0xE1...0xEC, 0xEE...0xEF: pending = 2
        case 0xED: (pending, high) = (2, 0x9F)
        case 0xF0: (pending, low) = (3, 0x90)
        case 0xF1...0xF3: pending = 3
        case 0xF4: (pending, high) = (3, 0x8F)
        default: return false
        }
        return true
    }
}
