/// A decimal number written in a request (`47.37`, `-122.4194`, `5000`), read as the `Double` `Double(text)` reads —
/// without `strtod` for the plain forms a client writes.
///
/// The fast path is Clinger's: at most 15 digits make an integer below 2^53 and a power of ten up to 10^15, both exact
/// in a `Double`, so one IEEE division is the correctly rounded value — the one `strtod` returns.
/// Anything else (an exponent, more digits, `inf`, a leading `+`) is `Double(text)`'s. Parsing two coordinates with
/// `strtod` was 1,700 instructions of a cached weather answer's 21,000.
public enum DecimalText {
    public static func double<Text: StringProtocol>(_ text: Text) -> Double? {
        var text = Substring(text)
        let fast = text.withUTF8 { plain($0) }
        return fast ?? Double(text)
    }

    /// The `Int` that `Int(text)` reads from UTF-8 bytes: plain digits (at most 18, which cannot overflow) at their bytes,
    /// anything else (a sign, more digits) through `Int` — a number a client sends on every request makes no `String`.
    public static func integer(bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 18, bytes.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return Int(String(decoding: bytes, as: UTF8.self))
        }
        return bytes.reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
    }

    /// ``double(_:)`` of UTF-8 bytes.
    public static func double(bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        plain(bytes) ?? Double(String(decoding: bytes, as: UTF8.self))
    }

    /// `-?digits(.digits)?` with at most 15 digits; `nil` otherwise.
    static func plain(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        var index = 0
        let negative = bytes.first == UInt8(ascii: "-")
        if negative { index = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var fraction = -1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                // One point, with a digit on each side (`5.` and `.5` are Double(text)'s to judge).
                guard fraction < 0, index > start, index + 1 < bytes.count else { return nil }
                fraction = 0
            } else {
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                digits += 1
                guard digits <= 15 else { return nil }
                mantissa = mantissa * 10 + UInt64(byte - UInt8(ascii: "0"))
                if fraction >= 0 { fraction += 1 }
            }
            index += 1
        }
        guard digits > 0 else { return nil }
        let magnitude = Double(mantissa) / powersOfTen(max(0, fraction))
        return negative ? -magnitude : magnitude
    }

    /// 10^n for n ≤ 15 (at most 15 digits reach here), each exact in a `Double`.
    private static func powersOfTen(_ n: Int) -> Double {
        switch n {
        case 0: 1
        case 1: 1e1
        case 2: 1e2
        case 3: 1e3
        case 4: 1e4
        case 5: 1e5
        case 6: 1e6
        case 7: 1e7
        case 8: 1e8
        case 9: 1e9
        case 10: 1e10
        case 11: 1e11
        case 12: 1e12
        case 13: 1e13
        case 14: 1e14
        default: 1e15
        }
    }
}
