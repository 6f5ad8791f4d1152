import Basics
import Parsing

/// One entry of a join's `config.postgres_changes`: which changes of which published table a channel wants, and the id
/// the server gives it. The SDKs compare the reply's bindings with theirs (event, schema, table and filter, as sent)
/// and route an event to the callbacks whose binding's id it carries.
struct PostgresChangeBinding: Sendable, Equatable {
    enum Event: String, Sendable, Hashable {
        case all = "*"
        case insert = "INSERT"
        case update = "UPDATE"
        case delete = "DELETE"

        /// The event a change of `kind` is.
        init(_ kind: TableChange.Kind) {
            switch kind {
            case .insert: self = .insert
            case .update: self = .update
            case .delete: self = .delete
            }
        }

        func covers(_ kind: TableChange.Kind) -> Bool { self == .all || self == Event(kind) }
    }

    var event: Event
    var schema: String
    var table: String
    /// The filter as read; kept once — the text sent is its column, `=eq.` and its value (``filterText``).
    var filter: PostgresChangeFilter?
    /// Stable for the same binding on any replica and after a reconnect (Supabase hashes the binding too); a
    /// positive 32-bit integer, as supabase-kt decodes ids into `Int`.
    var id: Int

    /// The binding `node` describes, checked against what is published, or why it is refused.
    static func read(_ node: JSONNode, published: [RealtimeTable]) -> Result<PostgresChangeBinding, RealtimeRefusal> {
        guard node.isObject else { return .failure(.binding("each postgres_changes entry is an object")) }
        guard let eventText = node["event"]?.string, let event = Event(rawValue: eventText) else {
            return .failure(.binding("event must be *, INSERT, UPDATE or DELETE"))
        }
        let schema = node["schema"]?.string ?? "public"
        guard let table = node["table"]?.string, schema == "public", let served = published.first(where: { $0.name == table }) else {
            return .failure(.table(schema: schema, table: node["table"]?.string))
        }
        var filter: PostgresChangeFilter?
        let filterText = node["filter"]?.string
        if let filterText {
            guard filterText.utf8.count <= RealtimeSettings.maxFilterBytes else {
                return .failure(.filter("a filter longer than \(RealtimeSettings.maxFilterBytes) bytes"))
            }
            switch PostgresChangeFilter.parse(filterText) {
            case .failure(let refusal): return .failure(refusal)
            case .success(let parsed):
                guard served.columns.contains(where: { $0.name == parsed.column }) else {
                    return .failure(.filter("\(table) publishes no column \(parsed.column)"))
                }
                filter = parsed
            }
        }
        let id = Self.id(of: [eventText, schema, table, filterText ?? ""])
        return .success(PostgresChangeBinding(event: event, schema: schema, table: table, filter: filter, id: id))
    }

    /// The filter as the client sent it (``PostgresChangeFilter/parse(_:)`` reads nothing else).
    var filterText: String? { filter.map { $0.column + "=eq." + $0.value } }

    /// Whether `change` is one this binding asked for.
    func matches(_ change: TableChange) -> Bool {
        guard change.table == table, event.covers(change.kind) else { return false }
        guard let filter else { return true }
        return change.filtered?.first(where: { $0.name == filter.column })?.value == filter.value
    }

    /// The reply's echo: what was sent, with the id.
    var json: String {
        JSONWriter.text { json in
            json.object { json in
                json.member("id", id)
                json.member("event", event.rawValue)
                json.member("schema", schema)
                json.member("table", table)
                if let filterText { json.member("filter", filterText) }
            }
        }
    }

    /// FNV-1a over the parts, folded to 31 bits (never 0: supabase-swift leaves an id of 0 out of its own echo).
    private static func id(of parts: [String]) -> Int {
        var hash: UInt32 = 2_166_136_261
        for part in parts {
            for byte in part.utf8 {
                hash ^= UInt32(byte)
                hash = hash &* 16_777_619
            }
            hash ^= 0x1F
            hash = hash &* 16_777_619
        }
        return Int(hash & 0x7FFF_FFFF) | 1
    }
}
