import Basics

/// A change to a published table's row, as a feature hands it to Realtime: its kind, the columns the table publishes
/// before and after, and when it committed.
public struct TableChange: Sendable, Equatable {
    public enum Kind: String, Sendable, Hashable {
        case insert = "INSERT"
        case update = "UPDATE"
        case delete = "DELETE"
    }

    /// A published column's value: text (a timestamp as ISO 8601), or `nil` for SQL's `NULL`.
    public struct Value: Sendable, Equatable {
        public var name: String
        public var value: String?

        public init(_ name: String, _ value: String?) {
            self.name = name
            self.value = value
        }
    }

    public var table: String
    public var kind: Kind
    /// After the change (`INSERT`, `UPDATE`).
    public var record: [Value]?
    /// Before it (`UPDATE`, `DELETE`).
    public var oldRecord: [Value]?
    /// ISO 8601 in UTC with milliseconds (`2026-06-18T14:32:00.123Z`), as the SDKs decode it.
    public var commitTimestamp: String
    /// What makes two changes the same to a subscriber that only re-reads (the wave a check-in is for): changes of one
    /// kind with the same value within the coalescing window reach subscribers once. `nil`: never coalesced.
    public var coalescing: String?

    public init(table: String, kind: Kind, record: [Value]?, oldRecord: [Value]?, commitTimestamp: String, coalescing: String?) {
        self.table = table
        self.kind = kind
        self.record = record
        self.oldRecord = oldRecord
        self.commitTimestamp = commitTimestamp
        self.coalescing = coalescing
    }

    /// The values a binding's filter is compared with: the row before a delete, after anything else.
    var filtered: [Value]? { kind == .delete ? oldRecord : record }

    /// The event's `data` in Supabase Realtime's shape (walrus's): `record` for inserts and updates, `old_record` for
    /// updates and deletes, the published columns, `errors` null.
    func data(columns: [RealtimeTable.Column]) -> String {
        JSONWriter.text { json in
            json.object { json in
                json.member("schema", "public")
                json.member("table", table)
                json.member("commit_timestamp", commitTimestamp)
                json.member("type", kind.rawValue)
                if let record { json.member("record", object: { Self.write(record, to: &$0) }) }
                if let oldRecord { json.member("old_record", object: { Self.write(oldRecord, to: &$0) }) }
                json.member("columns", array: { json in
                    for column in columns {
                        json.object { json in
                            json.member("name", column.name)
                            json.member("type", column.type)
                        }
                    }
                })
                json.key("errors")
                json.null()
            }
        }
    }

    private static func write(_ values: [Value], to json: inout JSONWriter) {
        for value in values { json.member(value.name, value.value) }
    }
}
