import Parsing

/// A CSV export of the Next Wave app's own level table (`lake_water_levels`: `lake_name,date,level_m`, a header
/// row, other columns allowed and ignored), as `pier import water-levels` reads it: RFC 4180 fields (quoted with
/// `"`, `""` inside), `,` between them, LF or CRLF between records. Every row is checked; a bad one is reported with
/// its line number, never skipped silently.
public enum WaterLevelCSV {
    public struct Row: Sendable, Equatable {
        /// The lake as the file names it (the app's or MeteoNews' name).
        public var lake: String
        public var level: LakeLevel
        /// The line the row starts on (1 is the header).
        public var line: Int
    }

    public struct Problem: Error, Sendable, Equatable, CustomStringConvertible {
        public var line: Int
        public var reason: String
        public var description: String { "line \(line): \(reason)" }

        public init(line: Int, reason: String) {
            self.line = line
            self.reason = reason
        }
    }

    /// The columns the file must have.
    public static let columns = ["lake_name", "date", "level_m"]
    /// Larger files are refused whole (two years of 16 lakes is ~12,000 rows, ~400 KB).
    public static let maxBytes = 64 << 20

    /// The rows of `text` and the problems found (the rows are only to be used when there are none).
    public static func read(_ text: [UInt8]) -> (rows: [Row], problems: [Problem]) {
        guard text.count <= maxBytes else { return ([], [Problem(line: 1, reason: "the file is larger than \(maxBytes >> 20) MB")]) }
        var records = Self.records(text)
        guard !records.isEmpty else { return ([], [Problem(line: 1, reason: "the file is empty: a header row lake_name,date,level_m is expected")]) }
        let header = records.removeFirst()
        let names = header.fields.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        var positions: [Int] = []
        for column in columns {
            guard let position = names.firstIndex(of: column) else {
                return ([], [Problem(line: header.line, reason: "the header has no column \(column) (expected lake_name,date,level_m)")])
            }
            positions.append(position)
        }
        var rows: [Row] = [], problems: [Problem] = []
        if let unterminated = header.problem { problems.append(Problem(line: header.line, reason: unterminated)) }
        for record in records {
            if let problem = record.problem {
                problems.append(Problem(line: record.line, reason: problem))
                continue
            }
            if record.fields.count == 1, record.fields[0].isEmpty { continue }  // a blank line
            guard record.fields.count == names.count else {
                problems.append(Problem(line: record.line, reason: "\(record.fields.count) fields, the header has \(names.count)"))
                continue
            }
            let lake = record.fields[positions[0]].trimmingCharacters(in: .whitespaces)
            let dateText = record.fields[positions[1]].trimmingCharacters(in: .whitespaces)
            let levelText = record.fields[positions[2]].trimmingCharacters(in: .whitespaces)
            guard !lake.isEmpty, lake.count <= 100 else {
                problems.append(Problem(line: record.line, reason: "lake_name is empty or longer than 100 characters"))
                continue
            }
            guard dateText.utf8.count == 10, let day = CalendarDate(dateText) else {
                problems.append(Problem(line: record.line, reason: "date must be a calendar date written YYYY-MM-DD"))
                continue
            }
            guard let metres = Double(levelText), LakeLevel.plausible.contains(metres) else {
                problems.append(Problem(line: record.line, reason: "level_m must be metres above sea level, \(Int(LakeLevel.plausible.lowerBound))…\(Int(LakeLevel.plausible.upperBound))"))
                continue
            }
            rows.append(Row(lake: lake, level: LakeLevel(day: day, metres: metres), line: record.line))
        }
        return (rows, problems)
    }

    struct Record {
        var fields: [String]
        var line: Int
        var problem: String?
    }

    /// The file's records: fields split at commas outside quotes, records at line ends outside quotes.
    static func records(_ text: [UInt8]) -> [Record] {
        var records: [Record] = []
        var fields: [String] = [], field: [UInt8] = []
        var quoted = false, line = 1, start = 1, index = 0, sawAny = false
        var bytes = text[...]
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { bytes = bytes.dropFirst(3) }  // a UTF-8 byte order mark
        let all = Array(bytes)
        func endField() {
            fields.append(String(decoding: field, as: UTF8.self))
            field.removeAll(keepingCapacity: true)
        }
        func endRecord() {
            endField()
            records.append(Record(fields: fields, line: start))
            fields.removeAll(keepingCapacity: true)
        }
        while index < all.count {
            let byte = all[index]
            sawAny = true
            if quoted {
                if byte == UInt8(ascii: "\"") {
                    if index + 1 < all.count, all[index + 1] == UInt8(ascii: "\"") {
                        field.append(byte)
                        index += 1
                    } else {
                        quoted = false
                    }
                } else {
                    if byte == UInt8(ascii: "\n") { line += 1 }
                    field.append(byte)
                }
            } else if byte == UInt8(ascii: "\"") && field.isEmpty {
                quoted = true
            } else if byte == UInt8(ascii: ",") {
                endField()
            } else if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                if byte == UInt8(ascii: "\r"), index + 1 < all.count, all[index + 1] == UInt8(ascii: "\n") { index += 1 }
                endRecord()
                line += 1
                start = line
                sawAny = false
            } else {
                field.append(byte)
            }
            index += 1
        }
        if quoted {
            endField()
            records.append(Record(fields: fields, line: start, problem: "a quoted field is not closed"))
        } else if sawAny || !fields.isEmpty {
            endRecord()
        }
        return records
    }
}
