/// What a request's `Prefer` headers ask (PostgREST reads them comma-separated, across several headers).
public struct PostgRESTPreference: Equatable, Sendable {
    public enum Return: String, Sendable {
        case minimal, representation
        case headersOnly = "headers-only"
    }

    public enum Resolution: String, Sendable {
        case mergeDuplicates = "merge-duplicates"
        case ignoreDuplicates = "ignore-duplicates"
    }

    /// PostgREST's default: `minimal` for writes.
    public var returning: Return = .minimal
    /// `nil`: a plain insert (a conflict is an error).
    public var resolution: Resolution?
    /// `count=exact` (answered in `Content-Range`).
    public var countExact = false

    public init() {}

    /// Unknown preferences are ignored, as PostgREST does by default (`handling=lenient`).
    public init(headers: [String]) {
        for header in headers {
            for item in header.split(separator: ",") {
                let parts = item.trimmingSpaces.split(separator: "=", maxSplits: 1)
                guard parts.count == 2 else { continue }
                let value = String(parts[1].trimmingSpaces)
                switch parts[0].trimmingSpaces {
                case "return": returning = Return(rawValue: value) ?? returning
                case "resolution": resolution = Resolution(rawValue: value) ?? resolution
                case "count": countExact = value == "exact"
                default: break
                }
            }
        }
    }
}
