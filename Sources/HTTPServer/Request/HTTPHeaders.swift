/// An ordered list of header fields with case-insensitive lookup.
///
/// The fields lie as bytes in one buffer, each name followed by its value, with where each ends beside them: a
/// request's head becomes two allocations however many fields it carries, and a field turns into `String`s only when
/// someone asks for it (picohttpparser hands out the same ranges; making two `String`s per field was a tenth of a
/// cached answer's instructions, issue 67). Request headers arrive with lower-cased names (the parser folds them once
/// so lookups stay cheap); response headers keep the spelling the handler chose.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    /// Where one field lies in ``bytes``: the name from `start` to `nameEnd`, the value from `valueStart` to `end`.
    @usableFromInline
    struct Span: Sendable {
        @usableFromInline var start: Int32
        @usableFromInline var nameEnd: Int32
        @usableFromInline var valueStart: Int32
        @usableFromInline var end: Int32

        @usableFromInline
        init(start: Int32, nameEnd: Int32, valueStart: Int32, end: Int32) {
            (self.start, self.nameEnd, self.valueStart, self.end) = (start, nameEnd, valueStart, end)
        }
    }

    @usableFromInline private(set) var bytes: [UInt8] = []
    @usableFromInline private(set) var spans: [Span] = []

    public init() {}

    public init(_ fields: [(name: String, value: String)]) {
        for field in fields { add(field.name, field.value) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        for (name, value) in elements { add(name, value) }
    }

    /// A request head's field lines, copied in one piece; the parser then records where each field lies
    /// (``appendParsed(start:nameEnd:valueStart:end:)``) and folds the names (``foldNames()``).
    init(section: UnsafeBufferPointer<UInt8>, fields: Int) {
        bytes = Array(section)
        spans.reserveCapacity(fields)
    }

    public var count: Int { spans.count }

    /// Every field as `String`s, in order.
    public var fields: [(name: String, value: String)] { Array(self) }

    /// The first value of the named field.
    public subscript(name: String) -> String? {
        guard let index = firstIndex(of: name) else { return nil }
        return value(at: index)
    }

    /// Every value of the named field, in order.
    public func values(_ name: String) -> [String] {
        var found: [String] = []
        Self.withBytes(of: name) { wanted in
            for index in spans.indices where matches(index, wanted) { found.append(value(at: index)) }
        }
        return found
    }

    public func contains(_ name: String) -> Bool { firstIndex(of: name) != nil }

    /// Calls `body` with the first value of the named field as it lies in the buffer; `nil` without the field. For values
    /// read often and long (tokens): no `String` is made. Inlinable: a feature's call is specialized where it is made.
    @inlinable
    public func withFirstValue<R>(_ name: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R? {
        guard let index = firstIndex(of: name) else { return nil }
        let span = spans[index]
        return bytes.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[Int(span.valueStart)..<Int(span.end)])) }
    }

    public mutating func add(_ name: String, _ value: String) {
        let start = Int32(bytes.count)
        bytes.append(contentsOf: name.utf8)
        let valueStart = Int32(bytes.count)
        bytes.append(contentsOf: value.utf8)
        spans.append(Span(start: start, nameEnd: valueStart, valueStart: valueStart, end: Int32(bytes.count)))
    }

    /// Records a field of the copied section (offsets into it): the name from `start` to `nameEnd`, the value from
    /// `valueStart` to `end`.
    mutating func appendParsed(start: Int, nameEnd: Int, valueStart: Int, end: Int) {
        spans.append(Span(start: Int32(start), nameEnd: Int32(nameEnd), valueStart: Int32(valueStart), end: Int32(end)))
    }

    /// Folds the recorded names to lower case, in place (once per request, after its fields are recorded).
    mutating func foldNames() {
        let spans = spans
        bytes.withUnsafeMutableBufferPointer { bytes in
            for span in spans {
                for index in Int(span.start)..<Int(span.nameEnd) where bytes[index] >= 0x41 && bytes[index] <= 0x5A {
                    bytes[index] |= 0x20
                }
            }
        }
    }

    /// Replaces every field of that name with one field.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        add(name, value)
    }

    public mutating func remove(_ name: String) {
        guard contains(name) else { return }
        let kept = filter { !Self.equal($0.name, name) }
        self = HTTPHeaders(kept)
    }

    public struct Iterator: IteratorProtocol {
        let headers: HTTPHeaders
        var index = 0

        public mutating func next() -> (name: String, value: String)? {
            guard index < headers.spans.count else { return nil }
            defer { index += 1 }
            return (headers.name(at: index), headers.value(at: index))
        }
    }

    public func makeIterator() -> Iterator { Iterator(headers: self) }

    /// Calls `body` with each field's name and value bytes, in order: the response encoder writes them without making
    /// a `String`.
    func forEachField(_ body: (_ name: UnsafeBufferPointer<UInt8>, _ value: UnsafeBufferPointer<UInt8>) -> Void) {
        bytes.withUnsafeBufferPointer { all in
            for span in spans {
                body(
                    UnsafeBufferPointer(rebasing: all[Int(span.start)..<Int(span.nameEnd)]),
                    UnsafeBufferPointer(rebasing: all[Int(span.valueStart)..<Int(span.end)]))
            }
        }
    }

    private func name(at index: Int) -> String {
        let span = spans[index]
        return bytes.withUnsafeBufferPointer { String(decoding: $0[Int(span.start)..<Int(span.nameEnd)], as: UTF8.self) }
    }

    private func value(at index: Int) -> String {
        let span = spans[index]
        return bytes.withUnsafeBufferPointer { String(decoding: $0[Int(span.valueStart)..<Int(span.end)], as: UTF8.self) }
    }

    @usableFromInline
    func firstIndex(of name: String) -> Int? {
        Self.withBytes(of: name) { wanted in spans.indices.first { matches($0, wanted) } }
    }

    private func matches(_ index: Int, _ wanted: UnsafeBufferPointer<UInt8>) -> Bool {
        let span = spans[index]
        guard Int(span.nameEnd - span.start) == wanted.count else { return false }
        return bytes.withUnsafeBufferPointer { Self.equalFolded(UnsafeBufferPointer(rebasing: $0[Int(span.start)..<Int(span.nameEnd)]), wanted) }
    }

    private static func withBytes<R>(of name: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = name.utf8.withContiguousStorageIfAvailable(body) { return result }
        return Array(name.utf8).withUnsafeBufferPointer(body)
    }

    /// ASCII case-insensitive comparison of two byte strings.
    static func equalFolded(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        for index in 0..<a.count where a[index] != b[index] {
            let x = a[index] | 0x20
            guard x == b[index] | 0x20, x >= 0x61, x <= 0x7A else { return false }
        }
        return true
    }

    /// ASCII case-insensitive comparison without allocating lower-cased copies.
    public static func equal(_ a: String, _ b: String) -> Bool {
        withBytes(of: a) { a in withBytes(of: b) { b in equalFolded(a, b) } }
    }
}
