import Parsing

/// One notice of a table's changed rows (``RowNoticeDeclaration``), as `pier_rows_changed` writes it: the statement's
/// kind, when its transaction started, and a row per value of the coalescing column — the declared columns after the
/// change (`record`) and before it (`old_record`), each text or null. No rows: the statement changed rows too large to
/// carry (its subscribers re-read).
public struct RowNotice: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case insert = "INSERT"
        case update = "UPDATE"
        case delete = "DELETE"
    }

    public struct Row: Sendable, Equatable {
        /// The declared columns' values, in the declaration's order: after the change (inserts, updates).
        public let record: [String?]?
        /// Before it (updates, deletes).
        public let oldRecord: [String?]?
    }

    public let kind: Kind
    /// ISO 8601 in UTC with milliseconds (`2026-06-18T14:32:00.123Z`).
    public let commitTimestamp: String
    public let rows: [Row]

    /// The notice `body` holds, or `nil` when it is not of that shape or lacks a declared column.
    public init?(_ body: String, columns: [RowNoticeDeclaration.Column]) {
        guard let notice = try? JSONScanner.parse(Array(body.utf8)), let kind = notice["type"]?.string.flatMap(Kind.init(rawValue:)),
            let stamp = notice["commit_timestamp"]?.string, let rows = notice["rows"]?.elements
        else { return nil }
        var read: [Row] = []
        for row in rows {
            let record = row["record"].map { Self.values($0, columns) }
            let old = row["old_record"].map { Self.values($0, columns) }
            // A member that is there must be whole; one of the two must be.
            if record == .some(nil) || old == .some(nil) || (record == nil && old == nil) { return nil }
            read.append(Row(record: record ?? nil, oldRecord: old ?? nil))
        }
        self.kind = kind
        commitTimestamp = stamp
        self.rows = read
    }

    /// The declared columns' values of a row object; `nil` if one is missing, or neither text nor null.
    private static func values(_ node: JSONNode, _ columns: [RowNoticeDeclaration.Column]) -> [String?]? {
        var values: [String?] = []
        for column in columns {
            guard let member = node[column.name] else { return nil }
            if member.isNull {
                values.append(nil)
            } else if let text = member.string {
                values.append(text)
            } else {
                return nil
            }
        }
        return values
    }
}
