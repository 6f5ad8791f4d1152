/// MET Norway's symbol names (suffix stripped) as FMI WeatherSymbol3 codes, so that a forecast from MET Norway goes
/// through the one symbol table (``WeatherSymbol``) FMI's does. Pier's choice: `fair` (MET: "mostly clear") is
/// clear; showers and steady precipitation keep their WeatherSymbol3 families; anything `…andthunder` is thunder.
enum METSymbol {
    private static let codes: [String: Double] = [
        "clearsky": 1, "fair": 1, "partlycloudy": 2, "cloudy": 3, "fog": 92,
        "lightrainshowers": 21, "rainshowers": 22, "heavyrainshowers": 23,
        "lightrain": 31, "rain": 32, "heavyrain": 33,
        "lightsnowshowers": 41, "snowshowers": 42, "heavysnowshowers": 43,
        "lightsnow": 51, "snow": 52, "heavysnow": 53,
        "lightsleetshowers": 71, "sleetshowers": 72, "heavysleetshowers": 73,
        "lightsleet": 81, "sleet": 82, "heavysleet": 83,
    ]

    /// The WeatherSymbol3 code of a MET base name; `nil` for a name MET has not published.
    static func weatherSymbol3(_ name: String) -> Double? {
        if name.hasSuffix("andthunder") {
            let heavy = name.hasPrefix("heavy")
            return name.contains("showers") ? (heavy ? 62 : 61) : (heavy ? 64 : 63)
        }
        return codes[name]
    }
}
