/// JSON written straight into bytes: the one place that knows JSON's syntax (where a comma or a colon goes), how a
/// string is escaped and how a number is written. Every body Pier writes goes through it — the answers the features
/// write member by member, and ``OrderedJSONEncoder``'s output for typed values — so two answers never disagree on a
/// rule. Like SwiftNIO's `ByteBuffer` writers and Go's `json.Encoder` internals, it appends to one buffer and never
/// builds a tree: a cached answer is made once, an answer made per request (a filtered departure list) costs one pass.
///
/// The rules, written once:
/// - strings: `"` and `\` escaped with a backslash, `\n`, `\r`, `\t` by name, any other control character as
///   `\u00XX` (lowercase hex); `/` and everything from U+0080 up are written as they are (UTF-8);
/// - numbers (``number(_:)-(Double?)``): a whole value below 10^15 without a fraction (`14`, not `14.0`; `-0.0` as `0`),
///   any other finite one as Swift writes it shortest (`21.3`, `1e-07`), NaN and infinity as `null` — JSON has none.
///   ``number(described:)`` writes Swift's description (`60.0`) for the answers that always did.
///
/// A member's value follows its ``key(_:)``; containers are written by closures, so they always close:
/// ```swift
/// var json = JSONWriter()
/// json.object { json in
///     json.member("date", day.date)
///     json.key("routes")
///     json.array { json in for route in routes { json.string(route.name) } }
/// }
/// ```
public struct JSONWriter: Sendable {
    public private(set) var bytes: [UInt8]
    /// Whether the next value or key needs a comma before it (a value was written in the open container).
    private var separated = false

    public init(reservingCapacity capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    // MARK: Containers

    public mutating func object(_ fill: (inout JSONWriter) throws -> Void) rethrows {
        try container(open: UInt8(ascii: "{"), close: UInt8(ascii: "}"), fill)
    }

    public mutating func array(_ fill: (inout JSONWriter) throws -> Void) rethrows {
        try container(open: UInt8(ascii: "["), close: UInt8(ascii: "]"), fill)
    }

    private mutating func container(open: UInt8, close: UInt8, _ fill: (inout JSONWriter) throws -> Void) rethrows {
        separate()
        bytes.append(open)
        separated = false
        try fill(&self)
        bytes.append(close)
        separated = true
    }

    /// A member's name in the open object: the value written next is its value.
    public mutating func key(_ name: String) {
        separate()
        Self.escape(name, into: &bytes)
        bytes.append(UInt8(ascii: ":"))
        separated = false
    }

    // MARK: Values

    /// A string, or `null` for `nil`.
    public mutating func string(_ text: String?) {
        separate()
        if let text { Self.escape(text, into: &bytes) } else { bytes.append(contentsOf: "null".utf8) }
        separated = true
    }

    /// A string whose characters need no escaping (digits, `-`, `:`, `+`, `T`, `Z`: a timestamp), written by `fill`
    /// straight into the buffer between its quotes — for values made per request, without making a `String`. What
    /// `fill` writes is not checked: anything that might need escaping goes through ``string(_:)``.
    public mutating func string(unescaped fill: (inout [UInt8]) -> Void) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        fill(&bytes)
        bytes.append(UInt8(ascii: "\""))
        separated = true
    }

    public mutating func number(_ value: Int) {
        separate()
        Self.append(value, to: &bytes)
        separated = true
    }

    /// A number by the rules above; `null` for `nil`, NaN and infinity.
    public mutating func number(_ value: Double?) {
        separate()
        if let value, value.isFinite {
            if value == value.rounded(), abs(value) < 1e15 { Self.append(Int(value), to: &bytes) } else { bytes.append(contentsOf: String(value).utf8) }
        } else {
            bytes.append(contentsOf: "null".utf8)
        }
        separated = true
    }

    /// A finite number as Swift describes it (`60.0`, `8.5`): for answers whose whole values always kept their `.0`.
    /// NaN and infinity are `null`.
    public mutating func number(described value: Double) {
        separate()
        if value.isFinite { bytes.append(contentsOf: value.description.utf8) } else { bytes.append(contentsOf: "null".utf8) }
        separated = true
    }

    public mutating func bool(_ value: Bool) {
        separate()
        bytes.append(contentsOf: value ? "true".utf8 : "false".utf8)
        separated = true
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: "null".utf8)
        separated = true
    }

    /// Bytes that are one JSON value already (a part made once and kept, another writer's output), written as they are.
    public mutating func json(_ value: some Sequence<UInt8>) {
        separate()
        bytes.append(contentsOf: value)
        separated = true
    }

    // MARK: Members (a key and its value)

    public mutating func member(_ name: String, _ text: String?) {
        key(name)
        string(text)
    }

    public mutating func member(_ name: String, _ value: Int) {
        key(name)
        number(value)
    }

    public mutating func member(_ name: String, _ value: Double?) {
        key(name)
        number(value)
    }

    public mutating func member(_ name: String, _ value: Bool) {
        key(name)
        bool(value)
    }

    public mutating func member(_ name: String, json value: some Sequence<UInt8>) {
        key(name)
        json(value)
    }

    public mutating func member(_ name: String, object fill: (inout JSONWriter) throws -> Void) rethrows {
        key(name)
        try object(fill)
    }

    public mutating func member(_ name: String, array fill: (inout JSONWriter) throws -> Void) rethrows {
        key(name)
        try array(fill)
    }

    // MARK: Whole documents and strings

    /// The bytes of one value written by `fill` (`JSONWriter.make { $0.object { … } }`).
    public static func make(reservingCapacity capacity: Int = 0, _ fill: (inout JSONWriter) throws -> Void) rethrows -> [UInt8] {
        var writer = JSONWriter(reservingCapacity: capacity)
        try fill(&writer)
        return writer.bytes
    }

    /// The text of one value written by `fill`: for JSON that travels as text (a WebSocket text frame, a token's part).
    public static func text(_ fill: (inout JSONWriter) throws -> Void) rethrows -> String {
        String(decoding: try make(fill), as: UTF8.self)
    }

    /// Writes one more value at the end of `bytes` (an answer being assembled around parts made earlier), without
    /// copying them.
    public static func append(to bytes: inout [UInt8], _ fill: (inout JSONWriter) throws -> Void) rethrows {
        var writer = JSONWriter()
        swap(&writer.bytes, &bytes)
        defer { swap(&writer.bytes, &bytes) }
        try fill(&writer)
    }

    /// `text` as a JSON string literal, quotes included: for a value that travels inside other text (a log line's
    /// member, an APNs header).
    public static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        escape(text, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `text` quoted and escaped: runs of bytes that need nothing are copied whole.
    static func escape(_ text: String, into bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in
            var start = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                if start < index { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<index])) }
                start = index + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                case UInt8(ascii: "\n"): bytes.append(UInt8(ascii: "n"))
                case UInt8(ascii: "\r"): bytes.append(UInt8(ascii: "r"))
                case UInt8(ascii: "\t"): bytes.append(UInt8(ascii: "t"))
                default:
                    bytes.append(contentsOf: "u00".utf8)
                    bytes.append(hex(byte >> 4))
                    bytes.append(hex(byte & 0xF))
                }
            }
            if start < utf8.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start...])) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func separate() {
        if separated { bytes.append(UInt8(ascii: ",")) }
    }

    /// An integer's decimal digits (a small `String`: no allocation).
    private static func append(_ value: Int, to bytes: inout [UInt8]) {
        bytes.append(contentsOf: String(value).utf8)
    }

    private static func hex(_ digit: UInt8) -> UInt8 {
        digit < 10 ? UInt8(ascii: "0") + digit : UInt8(ascii: "a") + digit - 10
    }
}
