/// An array parameter in PostgreSQL's text form (`{"a","b",NULL}`), for `= ANY($1::bigint[])` and `unnest($1::text[], …)`:
/// one parameter for a whole batch instead of one statement per row.
public enum PostgresArray {
    /// Every element quoted (backslash before `"` and `\`), `nil` as NULL.
    public static func literal(_ elements: [String?]) -> String {
        var text = "{"
        for (index, element) in elements.enumerated() {
            if index > 0 { text += "," }
            guard let element else {
                text += "NULL"
                continue
            }
            text += "\""
            for character in element.unicodeScalars {
                if character == "\"" || character == "\\" { text += "\\" }
                text.unicodeScalars.append(character)
            }
            text += "\""
        }
        return text + "}"
    }

    public static func literal(_ elements: [String]) -> String {
        literal(elements.map(Optional.some))
    }
}
