import Glibc

/// The `name=value` pairs of a query string (`+` is a space, `%XX` is a byte, UTF-8 assumed), decoded when asked.
///
/// It holds the bytes the query lies in — for a request, the buffer its target and head arrived in — and where the query
/// lies in them, so reading a query allocates nothing, and a request stays small: it is moved whole between the
/// parser's stages, and the larger it is the more of those moves are `memcpy` calls. Every escape is checked once, when
/// the query is made, which also notes whether any name holds an escape and a one-bit sign of each name. With names as
/// written (the common case, even when a value is escaped), a lookup of a name the query lacks — most of a handler's,
/// for optional parameters — is one test of that sign, and any other walks the segments once, compares names as bytes
/// and decodes only the value it returns (a value without `%` or `+`: nothing). Splitting the query into an array of
/// decoded `String` pairs on every request was a fifth of a cached sun answer's instructions. A handler's own names
/// are best asked as literals (`query[literal: "lat"]`): they are read where they lie.
public struct QueryParameters: Sendable, Equatable {
    /// The bytes holding the query, from `start` to `end`.
    @usableFromInline let text: [UInt8]
    @usableFromInline let start: UInt32
    @usableFromInline let end: UInt32
    /// One bit per name the query holds (``sign(_:)``, of its bytes as written); 0: no name at all.
    @usableFromInline let names: UInt32
    /// Where `%` and `+` stand: with none in any name, each name is its own bytes (the signs hold and names compare as
    /// bytes); with none at all, no value needs looking at to be given.
    @usableFromInline let escapes: Escapes

    @usableFromInline
    enum Escapes: UInt8, Sendable {
        case none, inValuesOnly, inNames
    }

    /// No `%` and no `+` in any name.
    @usableFromInline var plainNames: Bool { escapes != .inNames }

    public init() { (text, start, end, names, escapes) = ([], 0, 0, 0, .none) }

    /// Parses a raw query string (the part after `?`). Returns nil when a percent escape is malformed or decodes to
    /// invalid UTF-8.
    public init?(raw: Substring) {
        self.init(text: Array(raw.utf8), range: 0..<raw.utf8.count)
    }

    /// The query lying in `text` at `range` (a request's: after its target's first `?`; ASCII, checked by the head
    /// parser). Nil when an escape is malformed.
    init?(text: [UInt8], range: Range<Int>) {
        guard let (names, escapes) = text.withUnsafeBufferPointer({ Self.survey(UnsafeBufferPointer(rebasing: $0[range])) }) else { return nil }
        (self.text, start, end, self.names, self.escapes) = (text, UInt32(range.lowerBound), UInt32(range.upperBound), names, escapes)
    }

    /// The names' signs and whether every name is plain; nil when an escape is not well formed. The query is looked at
    /// for `%` and `+` sixteen bytes at a time, and split at its `&` and `=` by `memchr` (a byte at a time, this was ten
    /// instructions a byte).
    private static func survey(_ bytes: UnsafeBufferPointer<UInt8>) -> (names: UInt32, escapes: Escapes)? {
        let escaped = ByteScan.contains(bytes, UInt8(ascii: "%"), or: UInt8(ascii: "+"))
        var names: UInt32 = 0
        var plainNames = true
        var segment = 0
        while segment < bytes.count {
            let end = ByteScan.first(UInt8(ascii: "&"), in: bytes, from: segment)
            if end > segment {
                let pair = UnsafeBufferPointer(rebasing: bytes[segment..<end])
                let name = UnsafeBufferPointer(rebasing: pair[0..<ByteScan.first(UInt8(ascii: "="), in: pair)])
                names |= sign(name)
                if escaped && plainNames && ByteScan.contains(name, UInt8(ascii: "%"), or: UInt8(ascii: "+")) { plainNames = false }
            }
            segment = end + 1
        }
        guard escaped else { return (names, .none) }
        return isWellFormed(bytes) ? (names, plainNames ? .inValuesOnly : .inNames) : nil
    }

    /// A name's bit among a query's: from its first and last byte and its length, so `lat`, `lon` and `lng` differ.
    @usableFromInline
    static func sign(_ name: UnsafeBufferPointer<UInt8>) -> UInt32 {
        guard let first = name.first, let last = name.last else { return 1 }
        return 1 << ((UInt32(first) &* 7 &+ UInt32(last) &* 3 &+ UInt32(truncatingIfNeeded: name.count)) & 31)
    }

    /// The decoded pairs in order (an empty segment, `a&&b`, is none).
    public var pairs: [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        withQuery { bytes in
            Self.forEachPair(bytes) { name, value in
                pairs.append((Self.decoded(UnsafeBufferPointer(rebasing: bytes[name])), Self.decoded(UnsafeBufferPointer(rebasing: bytes[value]))))
                return true
            }
        }
        return pairs
    }

    /// The first value given for `name`.
    public subscript(name: String) -> String? {
        withValue(name) { String(decoding: $0, as: UTF8.self) }
    }

    /// Whether `name` is given (with a value or without).
    public func contains(_ name: String) -> Bool {
        withValue(name) { _ in true } ?? false
    }

    /// ``subscript(_:)`` for a name written in the code, read where the literal lies (a handler's own names: cheaper
    /// than a `String`'s by a closure and a copy).
    public subscript(literal name: StaticString) -> String? {
        withValue(literal: name) { String(decoding: $0, as: UTF8.self) }
    }

    /// ``contains(_:)`` for a name written in the code.
    public func contains(literal name: StaticString) -> Bool {
        withValue(literal: name) { _ in true } ?? false
    }

    /// Every value given for `name`, in order.
    public func values(_ name: String) -> [String] {
        var values: [String] = []
        var name = name
        name.withUTF8 { wanted in
            withQuery { bytes in
                var from = 0
                while let (range, escaped) = nextValue(of: wanted, in: bytes, from: from) {
                    let value = UnsafeBufferPointer(rebasing: bytes[range])
                    values.append(escaped ? Self.decoded(value) : String(decoding: value, as: UTF8.self))
                    from = range.upperBound + 1
                }
            }
        }
        return values
    }

    /// `body` of the first value given for `name`, decoded, as bytes; nil when the name is absent. Inlined where it is
    /// asked, so `body` runs without a call between.
    @inlinable
    public func withValue<Result>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result? {
        var name = name
        return try name.withUTF8 { try withValue(named: $0, body) }
    }

    /// ``withValue(_:_:)`` for a name written in the code: its bytes are read where the literal lies, one closure
    /// fewer than a `String`'s (a coordinate asks two names on every weather, warnings and sun request).
    @inlinable
    public func withValue<Result>(literal name: StaticString, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result? {
        guard name.hasPointerRepresentation else { return try withValue(name.description, body) }
        return try withValue(named: UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount), body)
    }

    /// The value of a name written in the code, read by `parse` from its bytes: `nil` when the query lacks it or it is
    /// empty; when `parse` finds nothing in it, the error `refusal` makes of what was sent (as text: a handler's message
    /// names it). A handler's own check of a parameter, made without a `String` unless it passes or is refused.
    @inlinable
    public func value<Value>(
        literal name: StaticString, refusal: (String) -> HTTPError, _ parse: (UnsafeBufferPointer<UInt8>) -> Value?
    ) throws(HTTPError) -> Value? {
        var refused: String?
        let value = withValue(literal: name) { bytes -> Value? in
            guard !bytes.isEmpty else { return nil }
            if let value = parse(bytes) { return value }
            refused = String(decoding: bytes, as: UTF8.self)
            return nil
        } ?? nil
        if let refused { throw refusal(refused) }
        return value
    }

    @inlinable
    func withValue<Result>(named wanted: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result? {
        guard names != 0 else { return nil }
        // A plain name the query surely lacks (most of a handler's lookups): answered here, without reading the query.
        if plainNames && !wanted.isEmpty && names & Self.sign(wanted) == 0 { return nil }
        return try withQuery { bytes in
            guard let (range, escaped) = nextValue(of: wanted, in: bytes, from: 0) else { return nil }
            let value = UnsafeBufferPointer(rebasing: bytes[range])
            return escaped ? try Self.withDecoded(value, body) : try body(value)
        }
    }

    /// The first value given for `wanted` in the segments from `from` on, and whether it holds an escape.
    @usableFromInline
    func nextValue(
        of wanted: UnsafeBufferPointer<UInt8>, in bytes: UnsafeBufferPointer<UInt8>, from: Int
    ) -> (range: Range<Int>, escaped: Bool)? {
        guard from < bytes.count else { return nil }
        // With every name plain, a name asked with `=`, `&`, `%` or `+` in it matches none (no plain name holds one), so
        // names compare as bytes whatever is asked.
        guard plainNames, !wanted.isEmpty else {
            var found: (range: Range<Int>, escaped: Bool)?
            Self.forEachPair(UnsafeBufferPointer(rebasing: bytes[from...])) { name, value in
                let raw = UnsafeBufferPointer(rebasing: bytes[name.lowerBound + from..<name.upperBound + from])
                guard Self.decodes(raw, to: wanted) else { return true }
                let range = value.lowerBound + from..<value.upperBound + from
                found = (range, Self.isEscaped(UnsafeBufferPointer(rebasing: bytes[range])))
                return false
            }
            return found
        }
        // Plain names: a name the query surely lacks answered from its sign, a name holding `=` (no plain name does: `=`
        // ends one — compared as bytes, `=` asked of a segment `=x` took its empty name and `=` for it) at once, else
        // each segment's start compared with the name (its first byte, then `memcmp`) and a segment that does not match
        // skipped to its `&`.
        guard names & Self.sign(wanted) != 0, ByteScan.first(UInt8(ascii: "="), in: wanted) == wanted.count,
            let base = bytes.baseAddress, let name = wanted.baseAddress
        else { return nil }
        var index = from
        while index < bytes.count {
            let end = Self.segmentEnd(bytes, from: index)
            let nameEnd = index + wanted.count
            if nameEnd <= end && (nameEnd == end || bytes[nameEnd] == UInt8(ascii: "=")) && bytes[index] == name[0]
                && memcmp(base + index, name, wanted.count) == 0
            {
                let value = min(nameEnd + 1, end)..<end
                return (value, escapes != .none && Self.isEscaped(UnsafeBufferPointer(rebasing: bytes[value])))
            }
            index = end + 1
        }
        return nil
    }

    /// Where the segment that `from` lies in ends: its `&`, or the query's end (`memchr`: a value skipped, a long
    /// list of categories, is passed at the C library's speed, not a byte at a time).
    @usableFromInline
    static func segmentEnd(_ bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int {
        ByteScan.first(UInt8(ascii: "&"), in: bytes, from: from)
    }

    /// No pair at all: every non-empty segment leaves a sign (an empty name's too).
    public var isEmpty: Bool { names == 0 }

    public static func == (lhs: QueryParameters, rhs: QueryParameters) -> Bool {
        lhs.pairs.elementsEqual(rhs.pairs) { $0.name == $1.name && $0.value == $1.value }
    }

    /// `body` of the query's bytes (empty without a query).
    @inlinable @inline(__always)
    func withQuery<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try text.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[Int(start)..<Int(end)])) }
    }

    /// Calls `body` with where each non-empty segment's raw name and value lie in `bytes` (a segment without `=` has an
    /// empty value) until it returns false.
    @inline(__always)
    private static func forEachPair(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (Range<Int>, Range<Int>) throws -> Bool) rethrows {
        var start = 0
        while start < bytes.count {
            var end = start, equals = -1
            while end < bytes.count && bytes[end] != UInt8(ascii: "&") {
                if equals < 0 && bytes[end] == UInt8(ascii: "=") { equals = end }
                end += 1
            }
            if end > start {
                let nameEnd = equals < 0 ? end : equals
                let valueStart = equals < 0 ? end : equals + 1
                guard try body(start..<nameEnd, valueStart..<end) else { return }
            }
            start = end + 1
        }
    }

    /// Every escape whole and hex, and what each escaped name and value decodes to valid UTF-8 — judged run by run of
    /// escapes: the bytes between escapes are ASCII or whole characters (a target's are ASCII, a `String`'s valid), so the
    /// decoded text is valid exactly when each run of adjacent escapes decodes to whole characters (`&`, `=` and `+`
    /// stand between runs, never in one). Only the escapes are read: decoding every escaped name and value into room and
    /// validating all its bytes was ~550 instructions of a cached geocoding answer.
    private static func isWellFormed(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = ByteScan.first(UInt8(ascii: "%"), in: bytes)
        var validator = UTF8Validator()
        while index < bytes.count {
            guard index + 2 < bytes.count, let high = PercentDecoding.hexValue(bytes[index + 1]),
                let low = PercentDecoding.hexValue(bytes[index + 2]), validator.validate(byte: high << 4 | low)
            else { return false }
            index += 3
            // A run ends where the next byte is not `%`: its last character must be whole there.
            if index == bytes.count || bytes[index] != UInt8(ascii: "%") {
                guard validator.isComplete else { return false }
                index = ByteScan.first(UInt8(ascii: "%"), in: bytes, from: index)
            }
        }
        return true
    }

    @usableFromInline
    static func isEscaped(_ raw: UnsafeBufferPointer<UInt8>) -> Bool {
        ByteScan.contains(raw, UInt8(ascii: "%"), or: UInt8(ascii: "+"))
    }

    /// Whether `raw` decodes to exactly `wanted`'s bytes.
    private static func decodes(_ raw: UnsafeBufferPointer<UInt8>, to wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        withDecoded(raw) { ByteScan.equal($0, wanted) }
    }

    /// `body` of a name's or value's bytes, decoded (its escapes were checked when the query was made; an array per
    /// escaped value was an allocation). Inlinable, as the decoding loop is: a handler in another module asking for an
    /// escaped value otherwise ran them unspecialised, instantiating their generic metadata on every request (~400).
    @inlinable
    static func withDecoded<Result>(_ raw: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
        try PercentDecoding.withDecoded(raw, plusIsSpace: true) { decoded, _ in try body(decoded) }
    }

    private static func decoded(_ raw: UnsafeBufferPointer<UInt8>) -> String {
        PercentDecoding.decode(raw, plusIsSpace: true) ?? ""
    }
}

/// Percent-decoding of URL components.
public enum PercentDecoding {
    /// Decodes `%XX` escapes (and `+` when asked). Nil for a truncated or non-hex escape or invalid UTF-8.
    public static func decode(_ text: Substring, plusIsSpace: Bool) -> String? {
        var text = text
        return text.withUTF8 { decode($0, plusIsSpace: plusIsSpace) }
    }

    /// ``decode(_:plusIsSpace:)`` of bytes that are valid UTF-8 (a `String`'s, or a request target's ASCII). The bytes
    /// are decoded into room on the stack (a path or a value is short), then made a `String`.
    static func decode(_ utf8: UnsafeBufferPointer<UInt8>, plusIsSpace: Bool) -> String? {
        if plusIsSpace ? !ByteScan.contains(utf8, UInt8(ascii: "%"), or: UInt8(ascii: "+")) : ByteScan.first(UInt8(ascii: "%"), in: utf8) == utf8.count {
            return String(decoding: utf8, as: UTF8.self)
        }
        return withDecoded(utf8, plusIsSpace: plusIsSpace) { decoded, malformed -> String? in
            // The room is never empty: the text holds an escape.
            guard !malformed else { return nil }
            // `String(decoding:)` validates on Swift's fast path and repairs what is invalid, so a text whose bytes are
            // the ones given was valid (`String(validating:)` took the generic, slower way: twice the instructions).
            var text = String(decoding: decoded, as: UTF8.self)
            let valid = text.withUTF8 { ByteScan.equal($0, decoded) }
            return valid ? text : nil
        }
    }

    /// `body` of the bytes `utf8` stands for, decoded into room on the stack (a path or a value is short), and whether an
    /// escape was broken (the bytes then end before it).
    @inlinable
    static func withDecoded<Result>(
        _ utf8: UnsafeBufferPointer<UInt8>, plusIsSpace: Bool, _ body: (UnsafeBufferPointer<UInt8>, _ malformed: Bool) throws -> Result
    ) rethrows -> Result {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(1, utf8.count)) { room in
            guard let from = utf8.baseAddress, let to = room.baseAddress else { return try body(UnsafeBufferPointer(rebasing: room[0..<0]), false) }
            var (index, count, malformed) = (0, 0, false)
            while index < utf8.count {
                // The run up to the next escape copied whole (`memchr` finds a path's `%`; with `+` a space too, the
                // bytes are looked at eight at a time).
                let end = plusIsSpace ? ByteWord.first(UInt8(ascii: "%"), or: UInt8(ascii: "+"), in: utf8, from: index)
                    : ByteScan.first(UInt8(ascii: "%"), in: utf8, from: index)
                if end - index >= 16 {
                    memcpy(to + count, from + index, end - index)
                    count += end - index
                    index = end
                } else {
                    // A short run is copied here, a word at a time: a call to `memcpy` costs more.
                    ByteWord.copy(from, from: index, to: end, within: utf8.count, into: to, at: count)
                    (count, index) = (count + end - index, end)
                }
                guard index < utf8.count else { break }
                if utf8[index] == UInt8(ascii: "+") {
                    room[count] = UInt8(ascii: " ")
                    (count, index) = (count + 1, index + 1)
                    continue
                }
                guard index + 2 < utf8.count, let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2]) else {
                    malformed = true
                    break
                }
                room[count] = high << 4 | low
                (count, index) = (count + 1, index + 3)
            }
            return try body(UnsafeBufferPointer(rebasing: room[0..<count]), malformed)
        }
    }

    @inlinable
    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
