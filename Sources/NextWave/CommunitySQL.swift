import Postgres
import PostgRESTFormat

/// The SQL of a `/rest/v1` request on one ``CommunityTable``: the client's filters, order and limit as a `WHERE`,
/// `ORDER BY` and `LIMIT` over the table's columns, every value a parameter cast to its column's type, and the rows
/// written out by PostgreSQL's `json_agg` — as PostgREST writes them, so the bytes are the same.
struct CommunitySQL {
    /// Rows a read answers at most (Supabase's `max-rows`).
    static let maximumRows = 1000

    let table: CommunityTable
    private(set) var parameters: [any PostgresEncodable] = []

    init(table: CommunityTable) {
        self.table = table
    }

    /// `$n` for `value`.
    mutating func parameter(_ value: any PostgresEncodable) -> String {
        parameters.append(value)
        return "$\(parameters.count)"
    }

    /// The columns `select` names (every column when `nil`), each `read AS "name"`.
    func selectList(_ select: [String]?) throws(PostgRESTError) -> String {
        let names = select ?? table.columns.map(\.name)
        return try names.map { (name) throws(PostgRESTError) -> String in
            guard let column = table.column(name) else { throw .unknownColumn(name, table: table.name) }
            return "\(column.read) AS \"\(column.name)\""
        }.joined(separator: ", ")
    }

    /// The caller's rows (`owner = user`) and the query's filters, joined with `AND`; `nil` when the caller sees no row.
    mutating func conditions(_ query: PostgRESTQuery, user: String?) throws(PostgRESTError) -> String? {
        var terms: [String] = []
        if let owner = table.owner {
            guard let user else { return nil }
            terms.append("\(owner) = \(parameter(user))::uuid")
        }
        for filter in query.filters {
            guard let column = table.column(filter.column) else { throw .unknownColumn(filter.column, table: table.name) }
            let term = try condition(filter, column)
            terms.append(filter.negated ? "NOT (\(term))" : term)
        }
        return terms.isEmpty ? "true" : terms.joined(separator: " AND ")
    }

    /// A folded column (the lake names) is matched without regard to case.
    private mutating func condition(_ filter: PostgRESTFilter, _ column: CommunityTable.Column) throws(PostgRESTError) -> String {
        let folded = column.folded
        let left = folded ? "lower(\(column.read))" : column.read
        let cast = { (placeholder: String) in folded ? "lower(\(placeholder))" : "\(placeholder)::\(column.type)" }
        switch filter.op {
        case .is:
            return "\(column.read) IS \(filter.values[0].uppercased())"
        case .in:
            let list = parameter(PostgresArray.literal(filter.values))
            return folded ? "\(left) = ANY(SELECT lower(v) FROM unnest(\(list)::text[]) v)" : "\(left) = ANY(\(list)::\(column.type)[])"
        default:
            let symbol = switch filter.op {
            case .eq: "="
            case .neq: "<>"
            case .gt: ">"
            case .gte: ">="
            case .lt: "<"
            default: "<="
            }
            return "\(left) \(symbol) \(cast(parameter(filter.values[0])))"
        }
    }

    /// `ORDER BY …` (empty without an order) and `LIMIT`/`OFFSET`, the limit at most ``maximumRows``.
    func tail(_ query: PostgRESTQuery) throws(PostgRESTError) -> String {
        var text = ""
        if !query.order.isEmpty {
            text += " ORDER BY " + (try query.order.map { (order) throws(PostgRESTError) -> String in
                guard let column = table.column(order.column) else { throw .unknownColumn(order.column, table: table.name) }
                return "\(column.read) \(order.ascending ? "ASC" : "DESC")"
            }.joined(separator: ", "))
        }
        text += " LIMIT \(min(query.limit ?? Self.maximumRows, Self.maximumRows))"
        if let offset = query.offset { text += " OFFSET \(offset)" }
        return text
    }

    /// The rows of `inner` as one JSON array (`[]` for none), with their number, and `also` (more columns, `, x AS y`).
    static func aggregate(_ inner: String, also: String = "") -> String {
        "SELECT coalesce(json_agg(r), '[]')::text AS body, count(r)::int AS rows\(also) FROM (\(inner)) r"
    }
}
