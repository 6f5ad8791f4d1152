/// The PostgREST parts of a `/rest/v1/<table>` request's query string: the columns to return, the filters, the order,
/// the limit, and an upsert's conflict target — read and checked for shape only (whether a column exists is the
/// table's to say). Anything PostgREST has that the apps do not use (embedding, `or=`, JSON paths) is refused clearly.
public struct PostgRESTQuery: Equatable, Sendable {
    public struct Order: Equatable, Sendable {
        public var column: String
        public var ascending: Bool
        public init(column: String, ascending: Bool) {
            self.column = column
            self.ascending = ascending
        }
    }

    /// `nil`: every column (`select=*` or none given).
    public var select: [String]?
    public var filters: [PostgRESTFilter] = []
    public var order: [Order] = []
    public var limit: Int?
    public var offset: Int?
    /// `on_conflict=a,b`.
    public var onConflict: [String]?
    /// `columns=a,b`: the keys an insert takes from each object (the Python client sends it with a list).
    public var columns: [String]?

    public init() {}

    /// At most this many filters (the apps send three at most).
    public static let maximumFilters = 16
    /// `in.(…)` with more values is refused (the app asks for a day's visible waves).
    public static let maximumListValues = 500

    public init(pairs: [(name: String, value: String)]) throws(PostgRESTError) {
        for (name, value) in pairs {
            switch name {
            case "select":
                select = value == "*" || value.isEmpty ? nil : try Self.columnList(value, what: "select")
            case "order":
                order = try value.split(separator: ",").map { (term) throws(PostgRESTError) -> Order in
                    let parts = term.split(separator: ".")
                    guard let column = parts.first, Self.isColumn(column), parts.count <= 3 else { throw .parse("order (\(value.prefix(80)))") }
                    var ascending = true
                    for modifier in parts.dropFirst() {
                        switch modifier {
                        case "asc": ascending = true
                        case "desc": ascending = false
                        case "nullsfirst", "nullslast": break
                        default: throw .parse("order (\(value.prefix(80)))")
                        }
                    }
                    return Order(column: String(column), ascending: ascending)
                }
            case "limit", "offset":
                guard let number = Int(value), number >= 0 else { throw .parse("\(name) (\(value.prefix(20)))", details: "a whole number") }
                if name == "limit" { limit = number } else { offset = number }
            case "on_conflict":
                onConflict = try Self.columnList(value, what: "on_conflict")
            case "columns":
                columns = try Self.columnList(String(value.filter { $0 != "\"" }), what: "columns")
            case "or", "and", "not.or", "not.and":
                throw .parse("logic tree", details: "or= and and= are not served here")
            default:
                guard Self.isColumn(Substring(name)) else { throw .parse("filter (\(name.prefix(64)))", details: "not a column name") }
                filters.append(try PostgRESTFilter(column: name, text: value))
            }
        }
        guard filters.count <= Self.maximumFilters else { throw .parse("filters", details: "more than \(Self.maximumFilters)") }
        guard filters.allSatisfy({ $0.values.count <= Self.maximumListValues }) else {
            throw .parse("filter", details: "in. with more than \(Self.maximumListValues) values")
        }
    }

    /// The filters on `column` with `op` (not negated).
    public func values(_ column: String, _ op: PostgRESTFilter.Operator) -> [String]? {
        filters.first { $0.column == column && $0.op == op && !$0.negated }?.values
    }

    /// Plain column names: lower-case letters, digits and `_`, as the apps' tables have (no renaming, casts or embedding).
    static func isColumn(_ name: Substring) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 63, first >= UInt8(ascii: "a") && first <= UInt8(ascii: "z") || first == UInt8(ascii: "_") else { return false }
        return name.utf8.allSatisfy { ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "_") }
    }

    static func columnList(_ text: String, what: String) throws(PostgRESTError) -> [String] {
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
        guard !names.isEmpty, names.allSatisfy(isColumn) else {
            throw .parse("\(what) (\(text.prefix(80)))", details: "plain column names only, separated by commas")
        }
        return names.map(String.init)
    }
}

extension Substring {
    var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return text
    }
}
