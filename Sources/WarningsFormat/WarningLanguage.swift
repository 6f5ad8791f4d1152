/// The languages `/v1/warnings` answers in (`lang`), FMI's three.
public enum WarningLanguage: String, Sendable, CaseIterable {
    case en, fi, sv

    /// The order tried when a warning lacks a language: the asked one, then Finnish (every FMI warning has it),
    /// Swedish, English.
    public var fallbacks: [WarningLanguage] {
        switch self {
        case .en: [.en, .fi, .sv]
        case .fi: [.fi, .sv, .en]
        case .sv: [.sv, .fi, .en]
        }
    }

    /// Whether a CAP `language` (`en-GB`, `fi-FI`, `sv-FI`, any case) is this one.
    public func matches(_ cap: String) -> Bool {
        let lower = cap.lowercased()
        return lower == rawValue || lower.hasPrefix(rawValue + "-")
    }
}
