import Foundation

/// Reads settings from the environment and remembers every name it was asked for, so that a `PIER_*` variable
/// nothing read (a typo) can be reported. The executable reads its own settings with it and hands it to each
/// feature, which reads its section with its own defaults — each default written once, where it is used.
///
/// Durations are `Duration` everywhere; variables give them in seconds (`…_S`, fractions allowed).
public final class SettingsReader {
    public let environment: [String: String]
    private(set) public var names: Set<String> = []

    public init(environment: [String: String]) {
        self.environment = environment
    }

    public func string(_ name: String) -> String? {
        names.insert(name)
        return environment[name]
    }

    /// A secret (a key, a token, a database URL): from `name`, or from the file `name_FILE` names (Docker's
    /// secrets convention; one trailing newline dropped). Both set, or an unreadable file, is a problem that
    /// names the variable — never the value. Empty means unset.
    public func secret(_ name: String) throws -> String? {
        names.insert(name)
        names.insert(name + "_FILE")
        let direct = environment[name].flatMap { $0.isEmpty ? nil : $0 }
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

    public func int(_ name: String, default value: Int, in range: ClosedRange<Int>) throws -> Int {
        guard let text = string(name) else { return value }
        guard let parsed = Int(text.trimmingCharacters(in: .whitespaces)), range.contains(parsed) else {
            throw SettingsProblem.invalid(variable: name, value: text, expected: "a whole number in \(range.lowerBound)...\(range.upperBound)")
        }
        return parsed
    }

    public func number(_ name: String, default value: Double, in range: ClosedRange<Double>) throws -> Double {
        guard let text = string(name) else { return value }
        guard let parsed = Double(text.trimmingCharacters(in: .whitespaces)), parsed.isFinite, range.contains(parsed) else {
            throw SettingsProblem.invalid(variable: name, value: text, expected: "a number in \(range.lowerBound)...\(range.upperBound)")
        }
        return parsed
    }

    /// Seconds (fractions allowed) as a `Duration`; at most a week.
    public func seconds(_ name: String, default value: Duration, allowZero: Bool = false) throws -> Duration {
        guard let text = string(name) else { return value }
        guard let parsed = Double(text.trimmingCharacters(in: .whitespaces)), parsed.isFinite,
            allowZero ? parsed >= 0 : parsed > 0, parsed <= 7 * 86_400
        else {
            throw SettingsProblem.invalid(variable: name, value: text, expected: allowZero ? "seconds, 0 or more" : "seconds, greater than 0")
        }
        return .milliseconds(Int64(parsed * 1000))
    }

    /// Whole hours (a TTL of days or weeks), 1…8760.
    public func hours(_ name: String, default value: Duration) throws -> Duration {
        .seconds(3600 * (try int(name, default: Int(value.components.seconds / 3600), in: 1...8760)))
    }

    /// Whole days (a retention), 0…3650.
    public func days(_ name: String, default value: Duration) throws -> Duration {
        .seconds(86_400 * (try int(name, default: Int(value.components.seconds / 86_400), in: 0...3650)))
    }

    /// Mebibytes, returned in bytes.
    public func megabytes(_ name: String, default bytes: Int) throws -> Int {
        try int(name, default: bytes >> 20, in: 1...1 << 20) << 20
    }

    public func url(_ name: String, default value: String) throws -> String {
        guard let text = string(name) else { return value }
        guard let url = URL(string: text), ["http", "https"].contains(url.scheme?.lowercased() ?? ""), url.host != nil else {
            throw SettingsProblem.invalid(variable: name, value: text, expected: "an http or https URL")
        }
        return text
    }

    public func flag(_ name: String, default value: Bool) throws -> Bool {
        guard let text = string(name)?.lowercased() else { return value }
        switch text {
        case "on", "1", "true", "yes": return true
        case "off", "0", "false", "no": return false
        default: throw SettingsProblem.invalid(variable: name, value: text, expected: "on or off")
        }
    }
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
