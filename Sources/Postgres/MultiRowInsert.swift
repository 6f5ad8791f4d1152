extension PostgresConnection {
    /// Inserts `rows` with as few statements as the parameter limit allows.
    ///
    /// - Parameters:
    ///   - head: `INSERT INTO table (columns) VALUES`.
    ///   - row: one row's tuple with placeholders numbered within the row, e.g. `($1::date, $2, $3)`; expressions
    ///     are allowed (`ST_MakePoint($4, $3)`). It is repeated per row with the numbers shifted.
    ///   - rows: each row's parameters, in placeholder order.
    ///   - tail: what follows the values, e.g. `ON CONFLICT (id) DO UPDATE SET …`.
    /// - Returns: the rows affected.
    @discardableResult
    public func insert(_ head: String, row: String, rows: [[any PostgresEncodable]], tail: String = "") throws -> Int {
        guard let width = rows.first?.count, width > 0 else { return 0 }
        let template = RowTemplate(row)
        // PostgreSQL allows 65,535 parameters per statement; stay well below.
        let batch = max(1, 30_000 / width)
        var affected = 0
        for start in stride(from: 0, to: rows.count, by: batch) {
            let slice = rows[start..<min(start + batch, rows.count)]
            let tuples = slice.indices.map { template.render(offset: ($0 - start) * width) }
            affected += try execute(
                head + " " + tuples.joined(separator: ", ") + (tail.isEmpty ? "" : " " + tail), slice.flatMap { $0 })
        }
        return affected
    }
}

/// A row tuple split into literal text and placeholder numbers, so it can be repeated with shifted numbers.
private struct RowTemplate {
    private enum Part {
        case text(String)
        case placeholder(Int)
    }

    private let parts: [Part]

    init(_ template: String) {
        var parts: [Part] = []
        var text = ""
        var characters = template[...]
        while let character = characters.first {
            characters = characters.dropFirst()
            let digits = characters.prefix { $0.isASCII && $0.isNumber }
            if character == "$", let number = Int(digits) {
                parts.append(.text(text))
                parts.append(.placeholder(number))
                text = ""
                characters = characters.dropFirst(digits.count)
            } else {
                text.append(character)
            }
        }
        parts.append(.text(text))
        self.parts = parts
    }

    func render(offset: Int) -> String {
        parts.map { part in
            switch part {
            case let .text(text): text
            case let .placeholder(number): "$\(number + offset)"
            }
        }.joined()
    }
}
