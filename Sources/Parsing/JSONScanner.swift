
/// A strict JSON reader (RFC 8259) for upstream answers: the whole text must be one valid value, with
/// UTF-8 strings, no control characters, no lone surrogates and at most ``maximumDepth`` levels of nesting.
/// Anything else is refused, so garbage never reaches a client or the database.
public enum JSONScanner {
    /// Where and why the text is not JSON.
    public struct Failure: Error, Sendable, Equatable, CustomStringConvertible {
        var offset: Int
        var reason: String
        public var description: String { "not JSON at byte \(offset): \(reason)" }
    }

    static let maximumDepth = 64

    public static func parse(_ text: [UInt8]) throws(Failure) -> JSONNode {
        var cursor = Cursor(text: text)
        cursor.skipSpace()
        let value = try cursor.value(depth: 0)
        cursor.skipSpace()
        guard cursor.position == text.count else { throw Failure(offset: cursor.position, reason: "text after the value") }
        return value
    }

    private struct Cursor {
        let text: [UInt8]
        var position = 0

        init(text: [UInt8]) {
            self.text = text
        }

        var current: UInt8? { position < text.count ? text[position] : nil }

        mutating func skipSpace() {
            while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { position += 1 }
        }

        func failure(_ reason: String) -> Failure { Failure(offset: position, reason: reason) }

        mutating func value(depth: Int) throws(Failure) -> JSONNode {
            guard let byte = current else { throw failure("a value is missing") }
            let start = position
            switch byte {
            case UInt8(ascii: "{"): return try object(depth: depth + 1)
            case UInt8(ascii: "["): return try array(depth: depth + 1)
            case UInt8(ascii: "\""): return JSONNode(kind: .string(try string()), range: start..<position)
            case UInt8(ascii: "t"): try literal("true"); return JSONNode(kind: .bool(true), range: start..<position)
            case UInt8(ascii: "f"): try literal("false"); return JSONNode(kind: .bool(false), range: start..<position)
            case UInt8(ascii: "n"): try literal("null"); return JSONNode(kind: .null, range: start..<position)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try number()
                return JSONNode(kind: .number, range: start..<position)
            default: throw failure("unexpected byte \(byte)")
            }
        }

        mutating func object(depth: Int) throws(Failure) -> JSONNode {
            guard depth <= JSONScanner.maximumDepth else { throw failure("nested too deeply") }
            let start = position
            position += 1
            var members: [JSONNode.Member] = []
            skipSpace()
            if current == UInt8(ascii: "}") {
                position += 1
                return JSONNode(kind: .object(members), range: start..<position)
            }
            while true {
                skipSpace()
                guard current == UInt8(ascii: "\"") else { throw failure("a member name is missing") }
                let key = try string()
                skipSpace()
                guard current == UInt8(ascii: ":") else { throw failure("':' is missing") }
                position += 1
                skipSpace()
                members.append(JSONNode.Member(key: key, value: try value(depth: depth)))
                skipSpace()
                switch current {
                case UInt8(ascii: ",")?: position += 1
                case UInt8(ascii: "}")?:
                    position += 1
                    return JSONNode(kind: .object(members), range: start..<position)
                default: throw failure("',' or '}' is missing")
                }
            }
        }

        mutating func array(depth: Int) throws(Failure) -> JSONNode {
            guard depth <= JSONScanner.maximumDepth else { throw failure("nested too deeply") }
            let start = position
            position += 1
            var elements: [JSONNode] = []
            skipSpace()
            if current == UInt8(ascii: "]") {
                position += 1
                return JSONNode(kind: .array(elements), range: start..<position)
            }
            while true {
                skipSpace()
                elements.append(try value(depth: depth))
                skipSpace()
                switch current {
                case UInt8(ascii: ",")?: position += 1
                case UInt8(ascii: "]")?:
                    position += 1
                    return JSONNode(kind: .array(elements), range: start..<position)
                default: throw failure("',' or ']' is missing")
                }
            }
        }

        mutating func literal(_ word: StaticString) throws(Failure) {
            let count = word.utf8CodeUnitCount
            guard position + count <= text.count else { throw failure("truncated literal") }
            let matches = word.withUTF8Buffer { expected in
                (0..<count).allSatisfy { text[position + $0] == expected[$0] }
            }
            guard matches else { throw failure("unknown literal") }
            position += count
        }

        mutating func number() throws(Failure) {
            if current == UInt8(ascii: "-") { position += 1 }
            guard let first = current, isDigit(first) else { throw failure("a digit is missing") }
            position += 1
            if first != UInt8(ascii: "0") { digits() }
            if current == UInt8(ascii: ".") {
                position += 1
                guard let byte = current, isDigit(byte) else { throw failure("a fraction digit is missing") }
                digits()
            }
            if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
                position += 1
                if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { position += 1 }
                guard let byte = current, isDigit(byte) else { throw failure("an exponent digit is missing") }
                digits()
            }
        }

        mutating func digits() {
            while let byte = current, isDigit(byte) { position += 1 }
        }

        func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

        /// A string literal (the cursor on its opening quote), decoded.
        mutating func string() throws(Failure) -> String {
            position += 1
            var decoded: [UInt8] = []
            var runStart = position
            while true {
                guard let byte = current else { throw failure("unterminated string") }
                switch byte {
                case UInt8(ascii: "\""):
                    let run = text[runStart..<position]
                    position += 1
                    // Most strings hold no escape: read straight from the text, with no copy to decode into.
                    if decoded.isEmpty { return try utf8(run) }
                    decoded.append(contentsOf: run)
                    return try utf8(decoded[...])
                case UInt8(ascii: "\\"):
                    decoded.append(contentsOf: text[runStart..<position])
                    try escape(into: &decoded)
                    runStart = position
                case 0..<0x20:
                    throw failure("a control character in a string")
                default:
                    position += 1
                }
            }
        }

        func utf8(_ bytes: ArraySlice<UInt8>) throws(Failure) -> String {
            // ASCII (a member's name, most values) is UTF-8 as it is: `String(validating:)` of a slice takes the
            // standard library's generic path (its types' metadata looked up at run time, ~900 instructions a name).
            let ascii = bytes.withUnsafeBufferPointer { buffer -> String? in
                var high: UInt8 = 0
                for byte in buffer { high |= byte }
                return high < 0x80 ? String(decoding: buffer, as: UTF8.self) : nil
            }
            if let ascii { return ascii }
            guard let text = String(validating: bytes, as: UTF8.self) else { throw failure("a string is not UTF-8") }
            return text
        }

        /// An escape sequence (the cursor on its backslash), appended as UTF-8.
        mutating func escape(into decoded: inout [UInt8]) throws(Failure) {
            position += 1
            guard let byte = current else { throw failure("unterminated escape") }
            position += 1
            switch byte {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(byte)
            case UInt8(ascii: "b"): decoded.append(0x08)
            case UInt8(ascii: "f"): decoded.append(0x0C)
            case UInt8(ascii: "n"): decoded.append(0x0A)
            case UInt8(ascii: "r"): decoded.append(0x0D)
            case UInt8(ascii: "t"): decoded.append(0x09)
            case UInt8(ascii: "u"):
                var scalar = try hex4()
                if (0xD800..<0xDC00).contains(scalar) {
                    guard current == UInt8(ascii: "\\"), position + 1 < text.count, text[position + 1] == UInt8(ascii: "u") else {
                        throw failure("a lone surrogate")
                    }
                    position += 2
                    let low = try hex4()
                    guard (0xDC00..<0xE000).contains(low) else { throw failure("a lone surrogate") }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                } else if (0xDC00..<0xE000).contains(scalar) {
                    throw failure("a lone surrogate")
                }
                guard let unicode = Unicode.Scalar(scalar) else { throw failure("not a Unicode scalar") }
                UTF8.encode(unicode) { decoded.append($0) }
            default:
                throw failure("unknown escape")
            }
        }

        mutating func hex4() throws(Failure) -> UInt32 {
            guard position + 4 <= text.count else { throw failure("truncated \\u escape") }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = text[position]
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: throw failure("not a hex digit")
                }
                value = value << 4 | UInt32(digit)
                position += 1
            }
            return value
        }
    }
}
