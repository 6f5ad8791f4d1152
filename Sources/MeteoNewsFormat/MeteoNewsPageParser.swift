import Markup

/// Reads MeteoNews' "Seen in der Schweiz" table into lake readings, in page order.
///
/// Rules (`Tests/Fixtures/meteonews/README.md`): every `tr` of every `tbody` of a table with at least two
/// `td` and link text in its first cell; temperature is the number directly before `°C` in the second cell
/// (`.` or `,` decimals, negatives), level is the third cell's text unless empty or a dash.
public enum MeteoNewsPageParser {
    private static let rows = "//table//tbody/tr"
    /// Names the site spells differently from the app.
    static let renamed = ["Vierwaldstätter See": "Vierwaldstättersee"]

    public static func parse(_ bytes: [UInt8]) throws(MarkupError) -> [LakeReading] {
        let document = try MarkupDocument.html(bytes)
        var lakes: [LakeReading] = []
        for row in try document.select(rows) {
            let cells = row.children.filter { $0.name == "td" }
            guard cells.count >= 2 else { continue }
            let name = cells[0].descendants(named: "a").map(\.text).joined(separator: " ")
            guard !name.isEmpty else { continue }
            lakes.append(
                LakeReading(
                    name: renamed[name] ?? name,
                    temperature: temperature(in: cells[1].text),
                    waterLevel: cells.count > 2 ? level(cells[2].text) : nil))
        }
        return lakes
    }

    /// The number directly before `°C` (`14`, `14.5`, `14,5`, `-0.5`), or `nil`. Expects normalised text.
    static func temperature(in text: String) -> Double? {
        let scalars = Array(text.unicodeScalars)
        for (index, scalar) in scalars.enumerated() where scalar == "°" {
            var after = index + 1
            if after < scalars.count, scalars[after] == " " { after += 1 }
            guard after < scalars.count, scalars[after] == "C" else { continue }
            var end = index
            if end > 0, scalars[end - 1] == " " { end -= 1 }
            var start = end
            while start > 0, isNumberPart(scalars[start - 1]) { start -= 1 }
            var number = String(String.UnicodeScalarView(scalars[start..<end].map { $0 == "," ? "." : $0 }))
            if start > 0, scalars[start - 1] == "-" || scalars[start - 1] == "\u{2212}" { number = "-" + number }
            if let value = Double(number), value.isFinite { return value }
        }
        return nil
    }

    private static func isNumberPart(_ scalar: Unicode.Scalar) -> Bool {
        ("0"..."9").contains(scalar) || scalar == "." || scalar == ","
    }

    /// The level text, or `nil` for an empty cell or a dash.
    static func level(_ text: String) -> String? {
        ["", "-", "–", "—"].contains(text) ? nil : text
    }
}
