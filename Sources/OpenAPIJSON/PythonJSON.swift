/// JSON written as Python's `json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)` writes it:
/// keys sorted by code point, no spaces, only `"`, `\` and control characters escaped, floats as Python's `repr`.
/// The form `/openapi.json` has always served (scripts/lib/openapi_json.py made it), byte for byte.
enum PythonJSON {
    static func write(_ value: YAMLValue) throws(YAMLProblem) -> String {
        var output = ""
        try write(value, into: &output)
        return output
    }

    private static func write(_ value: YAMLValue, into output: inout String) throws(YAMLProblem) {
        switch value {
        case .null: output += "null"
        case let .bool(flag): output += flag ? "true" : "false"
        case let .int(number): output += String(number)
        case let .float(number): output += try float(number)
        case let .string(text): string(text, into: &output)
        case let .sequence(items):
            output += "["
            for (position, item) in items.enumerated() {
                if position > 0 { output += "," }
                try write(item, into: &output)
            }
            output += "]"
        case let .mapping(pairs):
            // A key given twice: the last one wins, as in a Python dict.
            var latest: [String: YAMLValue] = [:]
            for pair in pairs { latest[pair.key] = pair.value }
            output += "{"
            for (position, key) in latest.keys.sorted(by: { $0.unicodeScalars.lexicographicallyPrecedes($1.unicodeScalars) }).enumerated() {
                if position > 0 { output += "," }
                string(key, into: &output)
                output += ":"
                try write(latest[key] ?? .null, into: &output)
            }
            output += "}"
        }
    }

    /// Python's `repr` of a float, which Swift's `description` matches: the shortest text that reads back, `.0` on whole
    /// numbers, an exponent (`1e-05`, `1e+16`) below 1e-4 and from 1e16.
    private static func float(_ number: Double) throws(YAMLProblem) -> String {
        guard number.isFinite else { throw .unsupported("a float that is not finite") }
        return number.description
    }

    // Not Basics' JSONWriter: Python writes backspace and form feed as `\b` and `\f`, the server `\u0008`/`\u000c`.
    private static func string(_ text: String, into output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{8}": output += "\\b"
            case "\u{C}": output += "\\f"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}
