/// The values of a template route's `{name}` segments (``PathTemplate``), read from the request's path when a handler
/// asks: the router records only which template matched (one reference), so a call to a templated route makes no
/// dictionary and no `String` it does not use (they were ~3,000 instructions of every community call, issue 67).
public struct PathParameters: Sendable {
    private let shape: PathTemplate.Shape?

    /// No template matched (an exact path): every value is absent.
    public init() { shape = nil }

    init(_ shape: PathTemplate.Shape) { self.shape = shape }

    public var isEmpty: Bool { shape == nil }

    /// The value of the segment `{name}` in `path` (the path the template matched), or `nil` when the template has none.
    /// Whole scalars: a segment ends at a slash byte, which is never inside another scalar.
    public func value(_ name: String, in path: String) -> String? {
        var path = path
        return path.withUTF8 { value(name, in: $0) }
    }

    /// ``value(_:in:)`` of the path's bytes.
    func value(_ name: String, in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        range(of: name, in: bytes).map { String(decoding: UnsafeBufferPointer(rebasing: bytes[$0]), as: UTF8.self) }
    }

    /// Where the segment `{name}` lies in the path's bytes.
    func range(of name: String, in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard let shape, let position = shape.position(of: name), shape.prefixSegments.bytes <= bytes.count else { return nil }
        // The path matched the template: it starts with the prefix's whole segments.
        var start = shape.prefixSegments.bytes
        for _ in shape.prefixSegments.count..<position {
            start = Self.segmentEnd(bytes, from: start) + 1
            guard start <= bytes.count else { return nil }
        }
        return start..<Self.segmentEnd(bytes, from: start)
    }

    /// Where the segment starting at `start` ends: the next `/` byte, or the path's end.
    static func segmentEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        ByteScan.first(UInt8(ascii: "/"), in: bytes, from: start)
    }
}
