import Glibc

/// A route path with named segments, `/v1/alplakes/simulations/1d/profile/simstrat/{lake}/{time}`: each
/// `{name}` matches one non-empty segment, everything else must match exactly. For drop-in routes whose
/// upstream puts values in the path; the metrics label stays the template, so it never grows with the values.
public struct PathTemplate: Sendable, Hashable, CustomStringConvertible {
    /// The template's segments, shared by every match (``PathParameters`` holds a reference, not a copy).
    final class Shape: Sendable {
        enum Segment: Sendable {
            case literal([UInt8])
            case parameter(String)
        }

        let segments: [Segment]
        /// The template's bytes before its first `{`: a path that does not start with them is not asked segment by segment.
        let literalPrefix: [UInt8]
        /// The leading literal segments the prefix holds whole, each with the slash after it, and their bytes: a path
        /// that starts with the prefix has them, so a match and a value's lookup start after them.
        let prefixSegments: (count: Int, bytes: Int)
        /// Each `{name}` and its segment's position (a handler asks by name: a short list, not the segments' walk).
        let parameters: [(name: String, position: Int)]

        init(_ template: String) {
            let literalPrefix = Array(template.utf8.prefix { $0 != UInt8(ascii: "{") })
            let segments: [Segment] = PathTemplate.split(template).map { segment in
                if segment.hasPrefix("{"), segment.hasSuffix("}"), segment.count > 2 {
                    return .parameter(String(segment.dropFirst().dropLast()))
                }
                return .literal(Array(segment.utf8))
            }
            var covered = (count: 0, bytes: 0)
            for segment in segments {
                guard case .literal(let text) = segment, covered.bytes + text.count < literalPrefix.count else { break }
                covered = (covered.count + 1, covered.bytes + text.count + 1)
            }
            (self.literalPrefix, self.segments, prefixSegments) = (literalPrefix, segments, covered)
            parameters = segments.enumerated().compactMap { position, segment in
                if case .parameter(let name) = segment { (name, position) } else { nil }
            }
        }

        /// The position of the segment `{name}`, if the template has one.
        func position(of name: String) -> Int? {
            for (parameter, position) in parameters where parameter == name { return position }
            return nil
        }
    }

    public let description: String
    let shape: Shape

    public init(_ template: String) {
        description = template
        shape = Shape(template)
    }

    public static func == (lhs: PathTemplate, rhs: PathTemplate) -> Bool { lhs.description == rhs.description }
    public func hash(into hasher: inout Hasher) { hasher.combine(description) }

    /// Whether a path string is a template (has a `{name}` segment).
    public static func isTemplate(_ path: String) -> Bool {
        path.split(separator: "/").contains { $0.hasPrefix("{") && $0.hasSuffix("}") && $0.count > 2 }
    }

    /// The values of the named segments when `path` matches, else `nil` (the router keeps only where they lie:
    /// ``PathParameters``).
    public func match(_ path: String) -> [String: String]? {
        var bytes = path
        guard bytes.withUTF8({ matches(utf8: $0) }) else { return nil }
        let parameters = PathParameters(shape)
        var values: [String: String] = [:]
        for case .parameter(let name) in shape.segments { values[name] = parameters.value(name, in: path) }
        return values
    }

    /// Whether a path's bytes match. Walks them once, a segment at a time, and gives up at the first that differs (the
    /// router asks every template for every path no exact route has; splitting the path into an array first cost more
    /// than the comparison). A literal matches byte for byte — a path whose segment is only canonically equivalent (a
    /// Kelvin sign for a K) is another path. Nothing is made: a handler that asks for a value reads it from the path then.
    func matches(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let shape = shape
        guard bytes.count >= shape.literalPrefix.count,
            shape.literalPrefix.withUnsafeBufferPointer({ ByteScan.equal(UnsafeBufferPointer(rebasing: bytes[..<$0.count]), $0) })
        else { return false }
        // The prefix's whole segments matched with it (never the last: a parameter follows them).
        var start = shape.prefixSegments.bytes
        let last = shape.segments.count - 1
        for position in shape.prefixSegments.count..<shape.segments.count {
            let segment = shape.segments[position]
            let end = PathParameters.segmentEnd(bytes, from: start)
            guard (position == last) == (end == bytes.count) else { return false }
            let part = UnsafeBufferPointer(rebasing: bytes[start..<end])
            switch segment {
            case .literal(let text):
                // `memcmp`, not `elementsEqual`: the generic walk was ~500 instructions of a Wikipedia path.
                guard part.count == text.count, text.withUnsafeBufferPointer({ ByteScan.equal(part, $0) }) else { return false }
            case .parameter:
                guard !part.isEmpty else { return false }
            }
            start = end + 1
        }
        return true
    }

    /// A template's segments, split at every `/` byte — in UTF-8 the slash's byte is never part of another scalar, so
    /// this is a split at every `/` scalar (a split by `Character` would miss a slash that a combining mark after it
    /// joins into one grapheme: found by schemathesis with a combining Glagolitic letter; ``matches(utf8:)`` walks bytes too).
    static func split(_ path: String) -> [String] {
        path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map { String(Substring($0)) }
    }
}
