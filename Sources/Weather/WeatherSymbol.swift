/// The contract's weather symbols, and the one table that maps FMI's codes to them.
public enum WeatherSymbol: String, Sendable, Codable, CaseIterable {
    case clear, partly_cloudy, cloudy, fog, drizzle, rain, heavy_rain, sleet, snow, heavy_snow, thunderstorm

    /// FMI WeatherSymbol3 → symbol (`Tests/Fixtures/fmi/FORMAT.md` §7). Values arrive as floats (`3.0`).
    static let byWeatherSymbol3: [Int: WeatherSymbol] = [
        1: .clear, 2: .partly_cloudy, 3: .cloudy,
        21: .rain, 22: .rain, 23: .heavy_rain, 31: .rain, 32: .rain, 33: .heavy_rain,
        41: .snow, 42: .snow, 43: .heavy_snow, 51: .snow, 52: .snow, 53: .heavy_snow,
        61: .thunderstorm, 62: .thunderstorm, 63: .thunderstorm, 64: .thunderstorm,
        71: .sleet, 72: .sleet, 73: .sleet, 81: .sleet, 82: .sleet, 83: .sleet,
        91: .fog, 92: .fog,
    ]

    /// How bad a symbol is, for choosing one symbol for a day when hours tie.
    var severity: Int { Self.allCases.firstIndex(of: self) ?? 0 }

    public init?(weatherSymbol3 code: Double?) {
        guard let code, code.isFinite, let symbol = Self.byWeatherSymbol3[Int(code.rounded())] else { return nil }
        self = symbol
    }

    /// A station's present weather (WMO 4680 `wawa`) and cloud cover (`n_man`, oktas; 9 = unknown) → symbol.
    ///
    /// Codes 20–25 ("during the previous hour, not now") count as no weather now, so the sky decides; drizzle
    /// gets its own symbol here (WeatherSymbol3 has none).
    public init?(wawa: Double?, cloudCover: Double?) {
        guard let wawa, wawa.isFinite else {
            guard let sky = Self.sky(cloudCover) else { return nil }
            self = sky
            return
        }
        switch Int(wawa.rounded()) {
        case 0, 20...25:
            guard let sky = Self.sky(cloudCover) else { return nil }
            self = sky
        case 4, 5, 10, 30...35: self = .fog
        case 40, 41, 60, 61, 62, 80, 81, 82: self = .rain
        case 42, 63, 83, 84: self = .heavy_rain
        case 50...56: self = .drizzle
        case 64...68: self = .sleet
        case 70, 71, 72, 74, 75, 77, 78, 85, 86: self = .snow
        case 73, 76, 87: self = .heavy_snow
        case 89: self = .sleet
        case 90...99: self = .thunderstorm
        default: return nil
        }
    }

    private static func sky(_ oktas: Double?) -> WeatherSymbol? {
        guard let oktas, oktas.isFinite, oktas >= 0, oktas < 9 else { return nil }
        switch oktas {
        case ..<2.5: return .clear
        case ..<5.5: return .partly_cloudy
        default: return .cloudy
        }
    }
}
