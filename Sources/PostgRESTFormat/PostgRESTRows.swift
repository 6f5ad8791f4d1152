import Parsing

/// The rows of a `POST /rest/v1/<table>` body as PostgREST reads them: one JSON object or an array of objects, each
/// member a column. With `columns=` only those keys are taken (the Python client sends it with a list); without it
/// every object must have the first one's keys. Values stay text, cast by the database to their column's type.
public struct PostgRESTRows: Equatable, Sendable {
    /// A value as it goes to the database: text, or `nil` for JSON `null`.
    public enum Value: Equatable, Sendable {
        case text(String)
        case number(String)
        case bool(Bool)
        case null

        /// The text PostgreSQL casts (`true`, `405.96`, the string itself).
        public var text: String? {
            switch self {
            case .text(let text), .number(let text): text
            case .bool(let flag): flag ? "true" : "false"
            case .null: nil
            }
        }
    }

    public var columns: [String]
    /// Each row's values, in ``columns``' order.
    public var rows: [[Value]]

    /// At most this many rows in one request (the apps send one; the lake-level scripts chunks of 200).
    public static let maximumRows = 500

    public init(json: [UInt8], columns given: [String]?) throws(PostgRESTError) {
        let node: JSONNode
        do { node = try JSONScanner.parse(json) } catch { throw PostgRESTError(status: 400, code: "PGRST102", message: "Empty or invalid json") }
        let objects: [JSONNode]
        if case .array(let elements) = node.kind { objects = elements } else { objects = [node] }
        guard objects.count <= Self.maximumRows else {
            throw PostgRESTError(status: 400, code: "PGRST102", message: "At most \(Self.maximumRows) rows in one request")
        }
        if let given, Set(given).count != given.count {
            throw PostgRESTError(status: 400, code: "PGRST102", message: "columns names a column twice")
        }
        var columns = given ?? []
        var rows: [[Value]] = []
        for (index, object) in objects.enumerated() {
            guard case .object(let members) = object.kind else {
                throw PostgRESTError(status: 400, code: "PGRST102", message: "Each row must be a JSON object")
            }
            if given == nil {
                let keys = members.map(\.key)
                if index == 0 {
                    guard Set(keys).count == keys.count else { throw PostgRESTError(status: 400, code: "PGRST102", message: "A key appears twice in a row") }
                    guard keys.allSatisfy({ PostgRESTQuery.isColumn(Substring($0)) }) else {
                        throw PostgRESTError(status: 400, code: "PGRST204", message: "Column names are plain lower-case names")
                    }
                    columns = keys
                } else if Set(keys) != Set(columns) || keys.count != columns.count {
                    throw PostgRESTError(status: 400, code: "PGRST102", message: "All object keys must match")
                }
            }
            rows.append(try columns.map { (column) throws(PostgRESTError) -> Value in
                guard let member = members.first(where: { $0.key == column }) else { return .null }
                switch member.value.kind {
                case .string(let text): return .text(text)
                case .number: return .number(String(decoding: json[member.value.range], as: UTF8.self))
                case .bool(let flag): return .bool(flag)
                case .null: return .null
                case .object, .array:
                    throw PostgRESTError(status: 400, code: "22P02", message: "\(column.prefix(64)): a plain value is expected, not an object or a list")
                }
            })
        }
        guard !columns.isEmpty else { throw PostgRESTError(status: 400, code: "PGRST102", message: "A row has no column") }
        self.columns = columns
        self.rows = rows
    }

    /// The values of `column` in every row, `nil` when the body has no such column.
    public func values(_ column: String) -> [Value]? {
        guard let index = columns.firstIndex(of: column) else { return nil }
        return rows.map { $0[index] }
    }

    /// Replaces `column`'s values (a name trimmed).
    public mutating func set(_ column: String, _ values: [Value]) {
        guard let index = columns.firstIndex(of: column) else { return }
        for row in rows.indices { rows[row][index] = values[row] }
    }
}
