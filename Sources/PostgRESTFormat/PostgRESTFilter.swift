/// One horizontal filter of a PostgREST query (`user_id=eq.…`, `wave_id=in.(a,b)`, `date=gte.2026-06-01`).
public struct PostgRESTFilter: Equatable, Sendable {
    public enum Operator: String, Sendable, CaseIterable {
        case eq, neq, gt, gte, lt, lte, `in`, `is`
    }

    public var column: String
    public var op: Operator
    /// One value, or the list of `in`; `is` takes `null`, `true` or `false`.
    public var values: [String]
    /// `not.` before the operator.
    public var negated: Bool

    public init(column: String, op: Operator, values: [String], negated: Bool = false) {
        self.column = column
        self.op = op
        self.values = values
        self.negated = negated
    }

    /// `column=[not.]op.value` as the query string carries it.
    init(column: String, text: String) throws(PostgRESTError) {
        self.column = column
        var rest = Substring(text)
        negated = rest.hasPrefix("not.")
        if negated { rest = rest.dropFirst(4) }
        guard let dot = rest.firstIndex(of: "."), let op = Operator(rawValue: String(rest[..<dot])) else {
            throw .parse("filter (\(text.prefix(80)))", details: "unknown or unsupported operator")
        }
        self.op = op
        let value = rest[rest.index(after: dot)...]
        switch op {
        case .in:
            guard value.hasPrefix("("), value.hasSuffix(")"), value.count >= 2 else {
                throw .parse("filter (\(text.prefix(80)))", details: "in. takes a list in parentheses: in.(a,b)")
            }
            values = try Self.list(value.dropFirst().dropLast())
        case .is:
            guard ["null", "true", "false"].contains(value.lowercased()) else {
                throw .parse("filter (\(text.prefix(80)))", details: "is. takes null, true or false")
            }
            values = [value.lowercased()]
        default:
            values = [String(value)]
        }
    }

    /// PostgREST's list syntax: comma-separated, an item in double quotes may hold commas and parentheses, `\` escapes.
    static func list(_ text: Substring) throws(PostgRESTError) -> [String] {
        var items: [String] = []
        var current = ""
        var quoted = false, wasQuoted = false, escaped = false
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
            } else if character == "\\" && quoted {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
                wasQuoted = true
            } else if character == "," && !quoted {
                items.append(current)
                current = ""
                wasQuoted = false
            } else {
                current.append(character)
            }
        }
        guard !quoted else { throw .parse("list (\(text.prefix(80)))", details: "an unclosed quote") }
        if !current.isEmpty || wasQuoted || !items.isEmpty { items.append(current) }
        return items
    }
}
