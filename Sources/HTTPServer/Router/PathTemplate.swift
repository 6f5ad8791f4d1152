import Glibc

/// A route path with named segments, `/v1/alplakes/simulations/1d/profile/simstrat/{lake}/{time}`: each
/// `{name}` matches one non-empty segment, everything else must match exactly. For drop-in routes whose
/// upstream puts values in the path; the metrics label stays the template, so it never grows with the values.
public struct PathTemplate: Sendable, Hashable, CustomStringConvertible {
    private enum Segment: Sendable, Hashable {
        case literal([UInt8])
        case parameter(String)
    }

    public let description: String
    private let segments: [Segment]
    /// The template's bytes before its first `{`: a path that does not start with them is not asked segment by segment.
    private let literalPrefix: [UInt8]
    /// How many `{name}` segments: a match's dictionary is made that large at once (grown one value at a time, it was
    /// allocated twice for a Wikipedia title's two).
    private let parameterCount: Int

    public init(_ template: String) {
        description = template
        literalPrefix = Array(template.utf8.prefix { $0 != UInt8(ascii: "{") })
        segments = Self.split(template).map { segment in
            if segment.hasPrefix("{"), segment.hasSuffix("}"), segment.count > 2 {
                return .parameter(String(segment.dropFirst().dropLast()))
            }
            return .literal(Array(segment.utf8))
        }
        parameterCount = segments.reduce(0) { count, segment in
            if case .parameter = segment { return count + 1 }
            return count
        }
    }

    /// Whether a path string is a template (has a `{name}` segment).
    public static func isTemplate(_ path: String) -> Bool {
        path.split(separator: "/").contains { $0.hasPrefix("{") && $0.hasSuffix("}") && $0.count > 2 }
    }

    /// The values of the named segments when `path` matches, else `nil`. Walks the path's bytes once, a segment at a
    /// time, and gives up at the first that differs (the router asks every template for every path no exact route has;
    /// splitting the path into an array first cost more than the comparison). A literal matches byte for byte — a path
    /// whose segment is only canonically equivalent (a Kelvin sign for a K) is another path.
    public func match(_ path: String) -> [String: String]? {
        var path = path
        return path.withUTF8 { match(utf8: $0) }
    }

    /// ``match(_:)`` of a path's bytes (the router reads them once for every template it asks).
    func match(utf8 bytes: UnsafeBufferPointer<UInt8>) -> [String: String]? {
        guard bytes.count >= literalPrefix.count, literalPrefix.withUnsafeBufferPointer({ prefix in
            guard let wanted = prefix.baseAddress, let given = bytes.baseAddress else { return prefix.isEmpty }
            return memcmp(given, wanted, prefix.count) == 0
        }) else { return nil }
        var start = 0
        var values = [String: String](minimumCapacity: parameterCount)
        for (position, segment) in segments.enumerated() {
            var end = start
            while end < bytes.count && bytes[end] != UInt8(ascii: "/") { end += 1 }
            let last = position == segments.count - 1
            guard last == (end == bytes.count) else { return nil }
            let part = UnsafeBufferPointer(rebasing: bytes[start..<end])
            switch segment {
            case .literal(let text):
                guard part.elementsEqual(text) else { return nil }
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                // Whole scalars: a segment ends at a slash byte, which is never inside another scalar.
                values[name] = String(decoding: part, as: UTF8.self)
            }
            start = end + 1
        }
        return values
    }

    /// A template's segments, split at every `/` byte — in UTF-8 the slash's byte is never part of another scalar, so
    /// this is a split at every `/` scalar (a split by `Character` would miss a slash that a combining mark after it
    /// joins into one grapheme: found by schemathesis with a combining Glagolitic letter; ``match(_:)`` walks bytes too).
    private static func split(_ path: String) -> [String] {
        path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map { String(Substring($0)) }
    }
}
