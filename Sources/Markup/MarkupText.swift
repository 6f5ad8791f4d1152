/// Text clean-up shared by every scraper: the rules the fixtures' parse results were made with.
public enum MarkupText {
    /// Collapses every run of Unicode whitespace (space, tab, CR, LF, U+00A0, U+202F, …) to one space and trims.
    public static func normalize(_ text: String) -> String {
        if isAlreadyNormal(text) { return text }
        var scalars = String.UnicodeScalarView()
        var pendingSpace = false
        for scalar in text.unicodeScalars {
            if scalar.properties.isWhitespace {
                pendingSpace = !scalars.isEmpty
                continue
            }
            if pendingSpace {
                scalars.append(" ")
                pendingSpace = false
            }
            scalars.append(scalar)
        }
        return String(scalars)
    }

    /// ASCII without leading, trailing or repeated whitespace (most cells and values): nothing to do.
    private static func isAlreadyNormal(_ text: String) -> Bool {
        var previousWasSpace = true
        for byte in text.utf8 {
            if byte >= 0x80 { return false }
            let isSpace = byte == 0x20
            if isSpace && previousWasSpace { return false }
            if byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C || byte == 0x0B { return false }
            previousWasSpace = isSpace
        }
        return !previousWasSpace || text.isEmpty
    }
}
