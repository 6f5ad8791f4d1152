import Foundation

/// Reads settings from the environment and remembers every name it was asked for, so that a `PIER_*` variable
/// nothing read (a typo) can be reported. The executable reads its own settings with it and hands it to each
/// feature, which reads its section with its own defaults — each default written once, where it is used.
///
/// Each read declares its setting: what it takes, its default and one line of meaning, written where it is read.
/// `pier settings` reads everything from an empty environment and prints those declarations: docs/settings.md is
/// that output, so the reference cannot drift from the code.
///
/// Durations are `Duration` everywhere; variables give them in seconds (`…_S`, fractions allowed).
public final class SettingsReader {
    public let environment: [String: String]
    private(set) public var names: Set<String> = []
    /// Every setting read, once each, as its first read declared it.
    private(set) public var declarations: [SettingDeclaration] = []

    public init(environment: [String: String]) {
        self.environment = environment
    }

    /// Text, `value` when unset.
    public func string(_ name: String, default value: String, meaning: String) -> String {
        declare(name, takes: "text", defaultValue: value, meaning: meaning)
        return raw(name) ?? value
    }

    /// Text, `nil` when unset. A caller that parses it into a default of its own (a time, a mode) shows that default as
    /// the variable would say it (`shown`); otherwise there is none.
    public func string(_ name: String, shown: String? = nil, meaning: String) -> String? {
        declare(name, takes: "text", defaultValue: shown, meaning: meaning)
        return raw(name)
    }

    /// A secret (a key, a token, a database URL): from `name`, or from the file `name_FILE` names (Docker's
    /// secrets convention; one trailing newline dropped). Both set, or an unreadable file, is a problem that
    /// names the variable — never the value. Empty means unset.
    public func secret(_ name: String, meaning: String) throws -> String? {
        declare(name, takes: "secret; or `\(name)_FILE`, a file holding it", defaultValue: nil, meaning: meaning)
        names.insert(name + "_FILE")
        let direct = raw(name).flatMap { $0.isEmpty ? nil : $0 }
        guard let path = environment[name + "_FILE"], !path.isEmpty else { return direct }
        if direct != nil { throw SettingsProblem.secretTwice(variable: name) }
        do {
            var text = try String(contentsOfFile: path, encoding: .utf8)
            if text.hasSuffix("\n") { text.removeLast() }
            if text.hasSuffix("\r") { text.removeLast() }
            return text.isEmpty ? nil : text
        } catch {
            throw SettingsProblem.unreadableSecretFile(variable: name, path: path, reason: (error as NSError).localizedDescription)
        }
    }

    /// `shown`: the default as the reference states it when it depends on the machine (`one per core`).
    public func int(_ name: String, default value: Int, in range: ClosedRange<Int>, shown: String? = nil, meaning: String) throws -> Int {
        declare(name, takes: "whole number, \(range.lowerBound) … \(range.upperBound)", defaultValue: shown ?? "\(value)", meaning: meaning)
        return try wholeNumber(name, default: value, in: range)
    }

    public func number(_ name: String, default value: Double, in range: ClosedRange<Double>, meaning: String) throws -> Double {
        declare(name, takes: "number, \(Self.text(range.lowerBound)) … \(Self.text(range.upperBound))", defaultValue: Self.text(value), meaning: meaning)
        guard let text = raw(name) else { return value }
        guard let parsed = Double(text.trimmingCharacters(in: .whitespaces)), parsed.isFinite, range.contains(parsed) else {
            throw SettingsProblem.invalid(variable: name, value: text, expected: "a number in \(range.lowerBound)...\(range.upperBound)")
        }
        return parsed
    }

    /// Seconds (fractions allowed) as a `Duration`; at most a week.
    public func seconds(_ name: String, default value: Duration, allowZero: Bool = false, meaning: String) throws -> Duration {
        declare(name, takes: allowZero ? "seconds, 0 … 604800" : "seconds, more than 0, at most 604800", defaultValue: Self.text(value), meaning: meaning)
        guard let text = raw(name) else { return value }
        guard let parsed = Double(text.trimmingCharacters(in: .whitespaces)), parsed.isFinite,
            allowZero ? parsed >= 0 : parsed > 0, parsed <= 7 * 86_400
        else {
            throw SettingsProblem.invalid(variable: name, value: text, expected: allowZero ? "seconds, 0 or more" : "seconds, greater than 0")
        }
        return .milliseconds(Int64(parsed * 1000))
    }

    /// Whole hours (a TTL of days or weeks), 1…8760.
    public func hours(_ name: String, default value: Duration, meaning: String) throws -> Duration {
        let hours = Int(value.components.seconds / 3600)
        declare(name, takes: "whole hours, 1 … 8760", defaultValue: "\(hours)", meaning: meaning)
        return .seconds(3600 * (try wholeNumber(name, default: hours, in: 1...8760)))
    }

    /// Whole days (a retention), 0…3650.
    public func days(_ name: String, default value: Duration, meaning: String) throws -> Duration {
        let days = Int(value.components.seconds / 86_400)
        declare(name, takes: "whole days, 0 … 3650", defaultValue: "\(days)", meaning: meaning)
        return .seconds(86_400 * (try wholeNumber(name, default: days, in: 0...3650)))
    }

    /// Mebibytes, returned in bytes.
    public func megabytes(_ name: String, default bytes: Int, meaning: String) throws -> Int {
        declare(name, takes: "MiB, 1 … 1048576", defaultValue: "\(bytes >> 20)", meaning: meaning)
        return try wholeNumber(name, default: bytes >> 20, in: 1...1 << 20) << 20
    }

    /// `shown`: the default as the reference states it when `value` is empty because the caller has its own (`Apple's hosts`).
    public func url(_ name: String, default value: String, shown: String? = nil, meaning: String) throws -> String {
        declare(name, takes: "http or https URL", defaultValue: shown ?? value, meaning: meaning)
        guard let text = raw(name) else { return value }
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw SettingsProblem.invalid(variable: name, value: text, expected: "an http or https URL")
        }
        return text
    }

    public func flag(_ name: String, default value: Bool, meaning: String) throws -> Bool {
        declare(name, takes: "on or off", defaultValue: value ? "on" : "off", meaning: meaning)
        guard let text = raw(name)?.lowercased() else { return value }
        switch text {
        case "on", "1", "true", "yes": return true
        case "off", "0", "false", "no": return false
        default: throw SettingsProblem.invalid(variable: name, value: text, expected: "on or off")
        }
    }

    /// The variable's value, its name remembered (the unknown-variable warning).
    private func raw(_ name: String) -> String? {
        names.insert(name)
        return environment[name]
    }

    private func wholeNumber(_ name: String, default value: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let text = raw(name) else { return value }
        guard let parsed = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(parsed) else {
            throw SettingsProblem.invalid(variable: name, value: text, expected: "a whole number in \(range.lowerBound)...\(range.upperBound)")
        }
        return parsed
    }

    /// The first read of a name declares it; later reads (a setting several features share) agree or are ignored. An
    /// empty default is none.
    private func declare(_ name: String, takes: String, defaultValue: String?, meaning: String) {
        guard !names.contains(name) else { return }
        declarations.append(SettingDeclaration(
            name: name, takes: takes, defaultValue: defaultValue.flatMap { $0.isEmpty ? nil : $0 }, meaning: meaning))
    }

    /// A number as a person writes it: `0.25`, `60`, not `60.0`.
    static func text(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    static func text(_ value: Duration) -> String {
        text(Double(value.components.seconds) + Double(value.components.attoseconds) / 1e18)
    }
}

/// One setting as the code that reads it declares it: its variable, what it takes, its default, one line of meaning.
public struct SettingDeclaration: Sendable, Equatable {
    public var name: String
    public var takes: String
    /// `nil`: no default (unset means off, or the code decides).
    public var defaultValue: String?
    public var meaning: String
}

/// A setting that cannot be used, reported before anything starts. Never carries a secret's value.
public enum SettingsProblem: Error, CustomStringConvertible {
    case invalid(variable: String, value: String, expected: String)
    case unreadableSecretFile(variable: String, path: String, reason: String)
    case secretTwice(variable: String)

    public var description: String {
        switch self {
        case .invalid(let variable, let value, let expected): "\(variable)=\(value) is invalid: expected \(expected)"
        case .unreadableSecretFile(let variable, let path, let reason): "\(variable)_FILE=\(path) cannot be read: \(reason)"
        case .secretTwice(let variable): "\(variable) and \(variable)_FILE are both set: set one of them"
        }
    }
}
