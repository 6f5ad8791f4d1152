/// A route path with named segments, `/v1/alplakes/simulations/1d/profile/simstrat/{lake}/{time}`: each
/// `{name}` matches one non-empty segment, everything else must match exactly. For drop-in routes whose
/// upstream puts values in the path; the metrics label stays the template, so it never grows with the values.
public struct PathTemplate: Sendable, Hashable, CustomStringConvertible {
    private enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
    }

    public let description: String
    private let segments: [Segment]

    public init(_ template: String) {
        description = template
        segments = Self.split(template).map { segment in
            if segment.hasPrefix("{"), segment.hasSuffix("}"), segment.count > 2 {
                return .parameter(String(segment.dropFirst().dropLast()))
            }
            return .literal(segment)
        }
    }

    /// Whether a path string is a template (has a `{name}` segment).
    public static func isTemplate(_ path: String) -> Bool {
        path.split(separator: "/").contains { $0.hasPrefix("{") && $0.hasSuffix("}") && $0.count > 2 }
    }

    /// The values of the named segments when `path` matches, else `nil`.
    public func match(_ path: String) -> [String: String]? {
        match(segments: Self.segments(of: path))
    }

    /// The values of the named segments when a path split by ``segments(of:)`` matches, else `nil` (the router splits
    /// a path once for all its templates).
    public func match(segments parts: [Substring]) -> [String: String]? {
        guard parts.count == segments.count else { return nil }
        var values: [String: String] = [:]
        for (part, segment) in zip(parts, segments) {
            switch segment {
            case .literal(let text):
                guard part == text else { return nil }
            case .parameter(let name):
                guard !part.isEmpty else { return nil }
                values[name] = String(part)
            }
        }
        return values
    }

    /// A path's segments, split at every `/` byte — in UTF-8 the slash's byte is never part of another scalar, so this
    /// is a split at every `/` scalar (a split by `Character` would miss a slash that a combining mark after it joins
    /// into one grapheme: found by schemathesis with a combining Glagolitic letter).
    public static func segments(of path: String) -> [Substring] {
        var parts: [Substring] = []
        var start = path.startIndex
        var index = path.utf8.startIndex
        while index != path.utf8.endIndex {
            if path.utf8[index] == UInt8(ascii: "/") {
                parts.append(path[start..<index])
                start = path.utf8.index(after: index)
            }
            index = path.utf8.index(after: index)
        }
        parts.append(path[start...])
        return parts
    }

    private static func split(_ path: String) -> [String] {
        segments(of: path).map(String.init)
    }
}
