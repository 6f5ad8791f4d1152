import Parsing

/// A function's arguments as PostgREST reads `/rest/v1/rpc/<name>`'s body: a JSON object (or nothing), naming only the
/// function's own parameters.
public enum PostgRESTArguments {
    /// `body` read for `function`, whose parameters are `allowed`.
    /// - Parameter allowed: the few names the function takes (a list: compared, never hashed).
    public static func parse(_ body: [UInt8], function: String, allowed: [String]) throws(PostgRESTError) -> JSONNode {
        guard let node = try? JSONScanner.parse(body.isEmpty ? Array("{}".utf8) : body), case .object(let members) = node.kind else {
            throw PostgRESTError(status: 400, code: "PGRST102", message: "Empty or invalid json")
        }
        if let unknown = members.first(where: { !allowed.contains($0.key) }) {
            throw PostgRESTError(
                status: 404, code: "PGRST202", message: "Could not find the function public.\(function)(\(unknown.key.prefix(64))) in the schema cache")
        }
        return node
    }

    /// Refuses a body of `bytes` bigger than `function`'s arguments can need (`maximum`), before anything else is looked at
    /// (PostgREST has no code for it: its gateway answers `413`).
    public static func checkSize(_ bytes: Int, function: String, maximum: Int) throws(PostgRESTError) {
        guard bytes <= maximum else {
            throw PostgRESTError(status: 413, code: "PGRST413", message: "the arguments of \(function) take at most \(maximum) bytes")
        }
    }

    /// The refusal of an argument's value, naming the argument (never echoing what was sent).
    public static func invalid(_ name: String, _ expected: String) -> PostgRESTError {
        PostgRESTError(status: 400, code: "22023", message: "\(name) must be \(expected)")
    }
}
