import Basics

/// An error as PostgREST writes it (`{"code","details","hint","message"}`) with the status it goes with: the Supabase
/// clients read `message` and `code` from this shape, so Pier's `/rest/v1` answers every refusal in it.
public struct PostgRESTError: Error, Equatable, Sendable {
    public var status: Int
    /// PostgREST's (`PGRST100`) or PostgreSQL's (`23505`, `42501`) code.
    public var code: String
    public var message: String
    public var details: String?
    public var hint: String?

    public init(status: Int, code: String, message: String, details: String? = nil, hint: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.details = details
        self.hint = hint
    }

    /// The body.
    public var json: String {
        JSONWriter.text { json in
            json.object { json in
                json.member("code", code)
                json.member("details", details)
                json.member("hint", hint)
                json.member("message", message)
            }
        }
    }

    /// A query parameter PostgREST could not parse.
    public static func parse(_ what: String, details: String? = nil) -> PostgRESTError {
        PostgRESTError(status: 400, code: "PGRST100", message: "\"failed to parse \(what)\"", details: details)
    }

    /// A table this server does not serve (PostgREST: not in the schema cache).
    public static func unknownTable(_ name: String) -> PostgRESTError {
        PostgRESTError(status: 404, code: "PGRST205", message: "Could not find the table 'public.\(name.prefix(64))' in the schema cache")
    }

    /// A function this server does not serve.
    public static func unknownFunction(_ name: String) -> PostgRESTError {
        PostgRESTError(status: 404, code: "PGRST202", message: "Could not find the function public.\(name.prefix(64)) in the schema cache")
    }

    /// A column the table does not have (or the client may not name).
    public static func unknownColumn(_ name: String, table: String) -> PostgRESTError {
        PostgRESTError(status: 400, code: "42703", message: "column \(table).\(name.prefix(64)) does not exist")
    }

    /// What row-level security refuses (a row for another user).
    public static func forbidden(table: String) -> PostgRESTError {
        PostgRESTError(status: 403, code: "42501", message: "new row violates row-level security policy for table \"\(table)\"")
    }

    /// Missing or unusable credentials.
    public static func unauthorized(_ message: String) -> PostgRESTError {
        PostgRESTError(status: 401, code: "PGRST301", message: message)
    }

    /// A method or feature of PostgREST this server does not offer, said plainly.
    public static func unsupported(_ message: String) -> PostgRESTError {
        PostgRESTError(status: 405, code: "PGRST117", message: message)
    }
}
