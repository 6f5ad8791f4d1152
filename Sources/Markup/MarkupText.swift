/// Text clean-up shared by every scraper: the rules the fixtures' parse results were made with.
public enum MarkupText {
    /// Collapses every run of Unicode whitespace (space, tab, CR, LF, U+00A0, U+202F, …) to one space and trims.
    public static func normalize(_ text: String) -> String {
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
}
