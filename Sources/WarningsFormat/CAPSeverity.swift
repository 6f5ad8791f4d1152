/// CAP's severities FMI uses, each with the colour FMI's profile maps it to one to one (Minor = green, which FMI
/// does not issue; Moderate = yellow; Severe = orange; Extreme = red). Ordered from least to most severe.
public enum CAPSeverity: Int, Sendable, Comparable, CaseIterable {
    case minor = 1, moderate, severe, extreme

    /// CAP's word (`Moderate`); `nil` for anything else (`Unknown` included: the profile says skip it quietly).
    public init?(cap word: String) {
        switch word {
        case "Minor": self = .minor
        case "Moderate": self = .moderate
        case "Severe": self = .severe
        case "Extreme": self = .extreme
        default: return nil
        }
    }

    /// As `/v1/warnings` writes it: `minor`, `moderate`, `severe`, `extreme`.
    public var name: String {
        switch self {
        case .minor: "minor"
        case .moderate: "moderate"
        case .severe: "severe"
        case .extreme: "extreme"
        }
    }

    public var color: String {
        switch self {
        case .minor: "green"
        case .moderate: "yellow"
        case .severe: "orange"
        case .extreme: "red"
        }
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
