import Foundation

/// A YAML node as PyYAML's safe loader reads it (YAML 1.1's types), mappings in document order.
enum YAMLValue {
    case null
    case bool(Bool)
    case int(Int)
    case float(Double)
    case string(String)
    case sequence([YAMLValue])
    case mapping([(key: String, value: YAMLValue)])

    /// A plain (unquoted) scalar resolved as PyYAML resolves it: null, a boolean (`yes`/`no`/`on`/`off` too), a
    /// decimal integer, a float with a dot, else a string. Forms PyYAML would read as something JSON has no word for
    /// (dates, octal, sexagesimal, infinities) are refused rather than guessed.
    static func plain(_ text: String) throws(YAMLProblem) -> YAMLValue {
        switch text {
        case "", "~", "null", "Null", "NULL": return .null
        case "yes", "Yes", "YES", "true", "True", "TRUE", "on", "On", "ON": return .bool(true)
        case "no", "No", "NO", "false", "False", "FALSE", "off", "Off", "OFF": return .bool(false)
        default: break
        }
        if Self.matches(text, Self.pyYAMLInt) {
            guard Self.matches(text, #"[-+]?(0|[1-9][0-9]*)"#), let value = Int(text) else { throw .unsupported("the number \(text)") }
            return .int(value)
        }
        if Self.matches(text, Self.pyYAMLFloat) {
            guard Self.matches(text, #"[-+]?([0-9]+\.[0-9]*|\.[0-9]+)([eE][-+][0-9]+)?"#), let value = Double(text.hasSuffix(".") ? text + "0" : text) else {
                throw .unsupported("the number \(text)")
            }
            return .float(value)
        }
        if text == "<<" || text == "=" || Self.matches(text, Self.pyYAMLTimestamp) { throw .unsupported("the value \(text)") }
        return .string(text)
    }

    // PyYAML's implicit resolvers (resolver.py), whole-value matches.
    private static let pyYAMLInt = #"[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+|[-+]?[1-9][0-9_]*(:[0-5]?[0-9])+"#
    private static let pyYAMLFloat =
        #"[-+]?([0-9][0-9_]*)\.[0-9_]*([eE][-+][0-9]+)?|\.[0-9_]+([eE][-+][0-9]+)?|[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+\.[0-9_]*|[-+]?\.(inf|Inf|INF)|\.(nan|NaN|NAN)"#
    private static let pyYAMLTimestamp =
        #"[0-9]{4}-[0-9]{2}-[0-9]{2}|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(\.[0-9]*)?([ \t]*(Z|[-+][0-9]{1,2}(:[0-9]{2})?))?"#

    private static func matches(_ text: String, _ pattern: String) -> Bool {
        text.range(of: "^(\(pattern))$", options: .regularExpression) != nil
    }
}

/// Why openapi.yaml could not be read: where, and what.
enum YAMLProblem: Error, CustomStringConvertible {
    case syntax(line: Int, String)
    /// YAML this reader does not take (anchors, tags, folded scalars, …): written differently, or the reader grown.
    case unsupported(String)

    var description: String {
        switch self {
        case let .syntax(line, message): "openapi.yaml line \(line): \(message)"
        case let .unsupported(what): "openapi.yaml: \(what) is YAML this build step does not read (Sources/OpenAPIJSON)"
        }
    }
}
