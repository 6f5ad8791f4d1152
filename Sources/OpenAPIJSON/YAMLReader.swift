/// Reads the YAML openapi.yaml is written in, as PyYAML reads it: block mappings and sequences (a sequence may sit at
/// its key's indentation), flow mappings and sequences, plain scalars over several lines, single- and double-quoted
/// scalars, literal block scalars (`|`, `|-`, `|+`) and comments. Anything else (anchors, tags, folded scalars,
/// several documents, complex keys) is refused with its line, never guessed: the build fails and says so.
struct YAMLReader {
    private var lines: [[Character]]
    private var index = 0

    init(_ text: String) {
        lines = text.split(separator: "\n", omittingEmptySubsequences: false).map { Array($0.hasSuffix("\r") ? $0.dropLast() : $0) }
    }

    /// The document's one node.
    mutating func read() throws(YAMLProblem) -> YAMLValue {
        skipBlank()
        if index < lines.count, String(lines[index]).hasPrefix("---") || String(lines[index]).hasPrefix("%") {
            throw .unsupported("a document marker or directive")
        }
        guard index < lines.count else { return .null }
        let value = try block(indent: indent(index))
        skipBlank()
        guard index == lines.count else { throw .syntax(line: index + 1, "more after the document's top node (indentation?)") }
        return value
    }

    // MARK: Lines

    private func indent(_ line: Int) -> Int { lines[line].prefix { $0 == " " }.count }

    private func content(_ line: Int) -> [Character] { Array(lines[line].drop { $0 == " " }) }

    private func isBlank(_ line: Int) -> Bool {
        let rest = content(line)
        return rest.isEmpty || rest.first == "#"
    }

    private mutating func skipBlank() {
        while index < lines.count, isBlank(index) { index += 1 }
    }

    // MARK: Block nodes

    /// The node whose first line is the current one, at `indent`.
    private mutating func block(indent: Int) throws(YAMLProblem) -> YAMLValue {
        let text = content(index)
        if text.first == "\t" { throw .syntax(line: index + 1, "a tab in indentation") }
        if Self.isSequenceItem(text) { return try sequence(indent: indent) }
        if try key(of: text) != nil { return try mapping(indent: indent) }
        index += 1
        return try value(after: text, parent: indent - 1, line: index)
    }

    private static func isSequenceItem(_ text: [Character]) -> Bool {
        text.first == "-" && (text.count == 1 || text[1] == " ")
    }

    private mutating func mapping(indent: Int) throws(YAMLProblem) -> YAMLValue {
        var pairs: [(key: String, value: YAMLValue)] = []
        while true {
            skipBlank()
            guard index < lines.count, self.indent(index) == indent else { break }
            let text = content(index)
            if Self.isSequenceItem(text) { break }
            guard let (key, rest) = try key(of: text) else { throw .syntax(line: index + 1, "expected `key: value`") }
            let line = index + 1
            index += 1
            pairs.append((key, try value(after: rest, parent: indent, line: line, indentlessSequence: true)))
        }
        if index < lines.count, self.indent(index) > indent { throw .syntax(line: index + 1, "unexpected indentation") }
        return .mapping(pairs)
    }

    private mutating func sequence(indent: Int) throws(YAMLProblem) -> YAMLValue {
        var items: [YAMLValue] = []
        while true {
            skipBlank()
            guard index < lines.count, self.indent(index) == indent, Self.isSequenceItem(content(index)) else { break }
            let after = Array(content(index).dropFirst())
            let rest = Array(after.drop { $0 == " " })
            if Self.isSequenceItem(rest) { throw .unsupported("a sequence inside a sequence item's line") }
            if !rest.isEmpty, rest.first != "#", try key(of: rest) != nil {
                // `- key: value`: a mapping whose keys stand at the first key's column.
                let column = indent + 1 + (after.count - rest.count)
                lines[index] = Array(repeating: " ", count: column) + rest
                items.append(try mapping(indent: column))
            } else {
                let line = index + 1
                index += 1
                items.append(try value(after: rest, parent: indent, line: line))
            }
        }
        if index < lines.count, self.indent(index) > indent { throw .syntax(line: index + 1, "unexpected indentation") }
        return .sequence(items)
    }

    /// `key: rest` when `text` starts a mapping entry: the key read and what follows its colon.
    private func key(of text: [Character]) throws(YAMLProblem) -> (String, [Character])? {
        guard let first = text.first, !"[{-?&*!|>#%@`".contains(first) || (first == "-" && text.count > 1 && text[1] != " ") else { return nil }
        if first == "'" || first == "\"" {
            var cursor = 0
            guard let key = try? Self.quoted(text, at: &cursor), cursor < text.count, text[cursor] == ":",
                cursor + 1 == text.count || text[cursor + 1] == " "
            else { return nil }
            return (key, Array(text[(cursor + 1)...]))
        }
        var position = 0
        while position < text.count {
            if text[position] == ":", position + 1 == text.count || text[position + 1] == " " { break }
            if text[position] == "#", position > 0, text[position - 1] == " " { return nil }
            position += 1
        }
        guard position < text.count else { return nil }
        let key = String(text[..<position]).trimmingTrailingSpaces
        guard case .string(let name) = try YAMLValue.plain(key) else { throw .unsupported("the key \(key), which is not a string") }
        return (name, Array(text[(position + 1)...]))
    }

    /// The value after a key's colon or a sequence item's dash (`rest`), reading on into the lines after it as its form
    /// requires; `parent` is the indentation of the key or dash.
    private mutating func value(after rest: [Character], parent: Int, line: Int, indentlessSequence: Bool = false) throws(YAMLProblem) -> YAMLValue {
        let text = Array(rest.drop { $0 == " " })
        guard let first = text.first, first != "#" else {
            skipBlank()
            guard index < lines.count else { return .null }
            let next = indent(index)
            if next > parent { return try block(indent: next) }
            if indentlessSequence, next == parent, Self.isSequenceItem(content(index)) { return try sequence(indent: parent) }
            return .null
        }
        switch first {
        case "|": return try literal(header: text, parent: parent, line: line)
        case ">": throw .unsupported("a folded scalar (`>`, line \(line))")
        case "&", "*", "!": throw .unsupported("an anchor, alias or tag (line \(line))")
        case "[", "{": return try flow(starting: text, parent: parent, line: line)
        case "'", "\"":
            var cursor = 0
            let string: String
            do { string = try Self.quoted(text, at: &cursor) } catch { throw .syntax(line: line, "\(error) (a quoted scalar must end on its line)") }
            let after = text[cursor...].drop { $0 == " " }
            guard after.isEmpty || after.first == "#" else { throw .syntax(line: line, "text after a quoted scalar") }
            return .string(string)
        default: return try plain(first: text, parent: parent)
        }
    }

    /// A plain scalar: its first line's text, then every following line indented deeper than `parent` (folded: a line
    /// break is a space, an empty line a newline), up to a comment.
    private mutating func plain(first: [Character], parent: Int) throws(YAMLProblem) -> YAMLValue {
        var (folded, ended) = Self.plainLine(first)
        var newlines = 0
        while !ended, index < lines.count {
            let text = content(index)
            if text.isEmpty {
                newlines += 1
                index += 1
                continue
            }
            guard indent(index) > parent, text.first != "#" else { break }
            let (part, comment) = Self.plainLine(text)
            if part.contains(": ") || part.hasSuffix(":") { throw .syntax(line: index + 1, "a `: ` inside a plain scalar") }
            folded += newlines == 0 ? " " + part : String(repeating: "\n", count: newlines) + part
            newlines = 0
            ended = comment
            index += 1
        }
        return try YAMLValue.plain(folded)
    }

    /// One line of a plain scalar, trimmed, and whether a comment ended it.
    private static func plainLine(_ text: [Character]) -> (String, Bool) {
        var end = text.count
        var comment = false
        for position in text.indices where text[position] == "#" && position > 0 && text[position - 1] == " " {
            end = position
            comment = true
            break
        }
        return (String(text[..<end]).trimmingTrailingSpaces, comment)
    }

    /// A literal block scalar (`|`, `|-`, `|+`): the lines indented deeper than `parent`, kept as they are below the
    /// first line's indentation.
    private mutating func literal(header: [Character], parent: Int, line: Int) throws(YAMLProblem) -> YAMLValue {
        let indicator = header.dropFirst().prefix { $0 != " " && $0 != "#" }
        guard indicator.isEmpty || indicator == ["-"] || indicator == ["+"] else { throw .unsupported("the block scalar header |\(String(indicator)) (line \(line))") }
        var body: [String] = []
        var column: Int?
        while index < lines.count {
            let text = content(index)
            if text.isEmpty {
                body.append("")
                index += 1
                continue
            }
            let here = indent(index)
            guard here > parent, here >= (column ?? here) else { break }
            column = column ?? here
            body.append(String(lines[index].dropFirst(column ?? here)))
            index += 1
        }
        // Trailing empty lines: kept (`+`), one line break (clip), none (`-`).
        var trailing = 0
        while let last = body.last, last.isEmpty {
            body.removeLast()
            trailing += 1
        }
        guard !body.isEmpty else { return .string("") }
        let text = body.joined(separator: "\n")
        switch indicator.first {
        case "-": return .string(text)
        case "+": return .string(text + String(repeating: "\n", count: trailing + 1))
        default: return .string(text + "\n")
        }
    }

    // MARK: Flow nodes

    /// A flow mapping or sequence, read on into following lines until its brackets close.
    private mutating func flow(starting text: [Character], parent: Int, line: Int) throws(YAMLProblem) -> YAMLValue {
        var characters = text
        var cursor = 0
        while true {
            cursor = 0
            do {
                let value = try Self.flowNode(characters, at: &cursor)
                let after = characters[cursor...].drop { $0 == " " }
                guard after.isEmpty || after.first == "#" else { throw YAMLProblem.syntax(line: line, "text after a flow collection") }
                return value
            } catch FlowEnd.endOfText {
                guard index < lines.count, indent(index) > parent || content(index).isEmpty else { throw .syntax(line: line, "a flow collection that does not close") }
                characters += [" "] + content(index)
                index += 1
            } catch let FlowEnd.problem(problem) {
                throw problem
            } catch {
                throw .syntax(line: line, "\(error)")
            }
        }
    }

    private enum FlowEnd: Error {
        case endOfText
        case problem(YAMLProblem)
    }

    private static func skipSpaces(_ text: [Character], _ cursor: inout Int) throws(FlowEnd) {
        while cursor < text.count, text[cursor] == " " { cursor += 1 }
        guard cursor < text.count else { throw .endOfText }
        if text[cursor] == "#" { throw .problem(.unsupported("a comment inside a flow collection")) }
    }

    private static func flowNode(_ text: [Character], at cursor: inout Int) throws(FlowEnd) -> YAMLValue {
        try skipSpaces(text, &cursor)
        switch text[cursor] {
        case "[":
            cursor += 1
            var items: [YAMLValue] = []
            while true {
                try skipSpaces(text, &cursor)
                if text[cursor] == "]" {
                    cursor += 1
                    return .sequence(items)
                }
                if !items.isEmpty {
                    guard text[cursor] == "," else { throw .problem(.syntax(line: 0, "expected `,` or `]` in a flow sequence")) }
                    cursor += 1
                    try skipSpaces(text, &cursor)
                    if text[cursor] == "]" { continue }
                }
                items.append(try flowNode(text, at: &cursor))
            }
        case "{":
            cursor += 1
            var pairs: [(key: String, value: YAMLValue)] = []
            while true {
                try skipSpaces(text, &cursor)
                if text[cursor] == "}" {
                    cursor += 1
                    return .mapping(pairs)
                }
                if !pairs.isEmpty {
                    guard text[cursor] == "," else { throw .problem(.syntax(line: 0, "expected `,` or `}` in a flow mapping")) }
                    cursor += 1
                    try skipSpaces(text, &cursor)
                    if text[cursor] == "}" { continue }
                }
                guard case .string(let key) = try flowNode(text, at: &cursor) else { throw .problem(.unsupported("a flow mapping key that is not a string")) }
                try skipSpaces(text, &cursor)
                // A key without `:` is a key whose value is null (`{a, b: c}`).
                guard text[cursor] == ":" else {
                    pairs.append((key, .null))
                    continue
                }
                cursor += 1
                pairs.append((key, try flowNode(text, at: &cursor)))
            }
        case "'", "\"":
            do { return .string(try quoted(text, at: &cursor)) } catch is Unterminated { throw .endOfText } catch let problem as YAMLProblem { throw .problem(problem) } catch { throw .problem(.syntax(line: 0, "\(error)")) }
        case "&", "*", "!", "|", ">", "?":
            throw .problem(.unsupported("`\(text[cursor])` in a flow collection"))
        default:
            // A plain scalar ends at a flow indicator or at `: ` / `:` before one.
            let start = cursor
            while cursor < text.count {
                let character = text[cursor]
                if ",[]{}".contains(character) { break }
                if character == ":", cursor + 1 == text.count || " ,[]{}".contains(text[cursor + 1]) { break }
                if character == "#", cursor > start, text[cursor - 1] == " " { break }
                cursor += 1
            }
            guard cursor < text.count else { throw .endOfText }
            do { return try YAMLValue.plain(String(text[start..<cursor]).trimmingTrailingSpaces) } catch { throw .problem(error) }
        }
    }

    // MARK: Quoted scalars

    /// A single- or double-quoted scalar starting at `cursor`, which is left after its closing quote.
    static func quoted(_ text: [Character], at cursor: inout Int) throws -> String {
        let quote = text[cursor]
        cursor += 1
        var result = ""
        while cursor < text.count {
            let character = text[cursor]
            cursor += 1
            if quote == "'" {
                if character == "'" {
                    guard cursor < text.count, text[cursor] == "'" else { return result }
                    cursor += 1
                }
                result.append(character)
                continue
            }
            if character == "\"" { return result }
            guard character == "\\" else {
                result.append(character)
                continue
            }
            guard cursor < text.count else { break }
            let escape = text[cursor]
            cursor += 1
            switch escape {
            case "0": result.append("\u{0}")
            case "a": result.append("\u{7}")
            case "b": result.append("\u{8}")
            case "t", "\t": result.append("\t")
            case "n": result.append("\n")
            case "v": result.append("\u{B}")
            case "f": result.append("\u{C}")
            case "r": result.append("\r")
            case "e": result.append("\u{1B}")
            case " ", "\"", "/", "\\": result.append(escape)
            case "N": result.append("\u{85}")
            case "_": result.append("\u{A0}")
            case "L": result.append("\u{2028}")
            case "P": result.append("\u{2029}")
            case "x", "u", "U":
                let length = escape == "x" ? 2 : escape == "u" ? 4 : 8
                guard cursor + length <= text.count, let code = UInt32(String(text[cursor..<(cursor + length)]), radix: 16),
                    let scalar = Unicode.Scalar(code)
                else { throw YAMLProblem.unsupported("the escape \\\(escape)") }
                result.unicodeScalars.append(scalar)
                cursor += length
            default: throw YAMLProblem.unsupported("the escape \\\(escape)")
            }
        }
        throw Unterminated()
    }

    /// A quoted scalar whose closing quote is not in the text (yet: a flow collection reads on).
    struct Unterminated: Error, CustomStringConvertible {
        var description: String { "an unterminated quoted scalar" }
    }
}

extension String {
    var trimmingTrailingSpaces: String {
        var text = Substring(self)
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return String(text)
    }
}
