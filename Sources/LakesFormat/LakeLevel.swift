import Parsing

/// One day's level of a lake, in metres above sea level (as MeteoNews shows it: `405.93 m.ü.M.`).
public struct LakeLevel: Sendable, Equatable {
    public var day: CalendarDate
    public var metres: Double

    public init(day: CalendarDate, metres: Double) {
        self.day = day
        self.metres = metres
    }

    /// The levels a lake may have (Swiss lakes lie between ~190 m, Lago Maggiore, and ~1,800 m, Silsersee; the
    /// bounds leave room and keep a misread number out).
    public static let plausible = 100.0...3000.0

    /// The metres of a MeteoNews level text (`405.93 m.ü.M.`, `193,20 m ü. M.`); `nil` when it holds no plausible
    /// number.
    public static func metres(_ text: String) -> Double? {
        let number = text.trimmingCharacters(in: .whitespaces).prefix { $0.isNumber || $0 == "." || $0 == "," }
        guard let value = Double(number.replacingOccurrences(of: ",", with: ".")), plausible.contains(value) else { return nil }
        return value
    }
}
