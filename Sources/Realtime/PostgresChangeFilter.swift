/// A binding's `filter`, `column=eq.value`: the one operator served (Supabase's Realtime also knows `neq`, `lt`, `in`
/// and others; neither app sends a filter). The value is compared with the column's text in the record.
struct PostgresChangeFilter: Sendable, Equatable {
    var column: String
    var value: String

    /// `text` read, or why not (worded for the join's reply).
    static func parse(_ text: String) -> Result<PostgresChangeFilter, RealtimeRefusal> {
        guard let equals = text.firstIndex(of: "=") else { return .failure(.filter("expected column=eq.value")) }
        let column = String(text[..<equals])
        let rest = text[text.index(after: equals)...]
        guard !column.isEmpty else { return .failure(.filter("expected column=eq.value")) }
        guard rest.hasPrefix("eq.") else { return .failure(.filter("only the eq operator is served")) }
        return .success(PostgresChangeFilter(column: column, value: String(rest.dropFirst(3))))
    }
}
