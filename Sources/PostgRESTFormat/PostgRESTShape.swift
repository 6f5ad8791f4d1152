/// What shape of answer a request's `Accept` asks for: PostgREST's rows as an array, or — with
/// `application/vnd.pgrst.object+json` (supabase-swift's and supabase-kt's `single()`) — exactly one row as an object.
public enum PostgRESTShape: Sendable, Equatable {
    case array
    case object

    public static let objectMediaType = "application/vnd.pgrst.object+json"

    public init(accept: String?) {
        let types = accept?.split(separator: ",").map { $0.split(separator: ";")[0].trimmingSpaces.lowercased() } ?? []
        self = types.contains(Self.objectMediaType) ? .object : .array
    }

    /// The one row of a JSON array of `count` rows as an object, or PostgREST's `406` (`PGRST116`) when there is not
    /// exactly one.
    public static func object(ofArray body: String, count: Int) throws(PostgRESTError) -> String {
        guard count == 1 else { throw PostgRESTError.notSingular(count) }
        let trimmed = Substring(body).trimmingSpaces
        guard trimmed.hasPrefix("["), trimmed.hasSuffix("]") else { throw PostgRESTError.notSingular(count) }
        return String(trimmed.dropFirst().dropLast().trimmingSpaces)
    }
}

extension PostgRESTError {
    /// `application/vnd.pgrst.object+json` asked for one row and there were `count` (a write is undone with it).
    public static func notSingular(_ count: Int) -> PostgRESTError {
        PostgRESTError(status: 406, code: "PGRST116", message: "Cannot coerce the result to a single JSON object", details: "The result contains \(count) rows")
    }

    /// An offset past the rows there are (`Prefer: count=exact` told the total).
    public static func rangeNotSatisfiable(offset: Int, total: Int) -> PostgRESTError {
        PostgRESTError(
            status: 416, code: "PGRST103", message: "Requested range not satisfiable",
            details: "An offset of \(offset) was requested, but there are only \(total) rows.")
    }
}
