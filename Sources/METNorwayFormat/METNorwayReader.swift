import Foundation

/// Reads Locationforecast 2.0 `compact` (GeoJSON) into a ``METNorwayForecast``: the instant values of each step,
/// and its period's precipitation and symbol — `next_1_hours` while MET has hourly data, else `next_6_hours`.
/// A step with an unreadable time is left out; a value that is not a finite number is missing. Symbols are taken
/// from MET's legend's spelling, suffix stripped (its two `lightss…` spellings are normalised).
public enum METNorwayReader {
    public static let maximumBytes = 4 << 20

    public static func read(_ bytes: [UInt8]) throws(METNorwayError) -> METNorwayForecast {
        guard bytes.count <= maximumBytes else { throw .unreadable("\(bytes.count) bytes, more than \(maximumBytes)") }
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: Data(bytes))
        } catch {
            throw .unreadable("not a Locationforecast feature")
        }
        var steps: [METNorwayForecast.Step] = []
        var seen: Set<Date> = []
        for entry in document.properties.timeseries ?? [] {
            guard let text = entry.time, let time = instant(text), seen.insert(time).inserted else { continue }
            let details = entry.data?.instant?.details
            var step = METNorwayForecast.Step(
                time: time, temperature: finite(details?.air_temperature), windSpeed: finite(details?.wind_speed),
                windDirection: finite(details?.wind_from_direction), humidity: finite(details?.relative_humidity),
                pressure: finite(details?.air_pressure_at_sea_level))
            if let hour = entry.data?.next_1_hours {
                step.periodHours = 1
                step.precipitation = finite(hour.details?.precipitation_amount).map { max(0, $0) }
                step.symbol = hour.summary?.symbol_code.map(baseSymbol)
            } else if let six = entry.data?.next_6_hours {
                step.periodHours = 6
                step.precipitation = finite(six.details?.precipitation_amount).map { max(0, $0) }
                step.symbol = six.summary?.symbol_code.map(baseSymbol)
            }
            steps.append(step)
        }
        steps.sort { $0.time < $1.time }
        guard !steps.isEmpty else { throw .empty }
        return METNorwayForecast(updatedAt: document.properties.meta?.updated_at.flatMap(instant), steps: steps)
    }

    /// `lightrainshowers_day` → `lightrainshowers`; MET's legend's `lightssleetshowersandthunder` → `lightsleetshowersandthunder`.
    public static func baseSymbol(_ code: String) -> String {
        var base = code
        while let suffix = ["_day", "_night", "_polartwilight"].first(where: base.hasSuffix) {
            base.removeLast(suffix.count)
        }
        if base.hasPrefix("lightss") { base.remove(at: base.index(base.startIndex, offsetBy: 5)) }
        return base
    }

    static func instant(_ text: String) -> Date? {
        try? Date(text, strategy: Date.ISO8601FormatStyle())
    }

    private static func finite(_ value: Double?) -> Double? {
        guard let value, value.isFinite else { return nil }
        return value
    }

    // The answer's shape (docs: metno/weatherapi-docs, locationforecast/datamodel.md); everything optional.
    private struct Document: Decodable {
        var properties: Properties
    }

    private struct Properties: Decodable {
        var meta: Meta?
        var timeseries: [Entry]?
    }

    private struct Meta: Decodable {
        var updated_at: String?
    }

    private struct Entry: Decodable {
        var time: String?
        var data: StepData?
    }

    private struct StepData: Decodable {
        var instant: Instant?
        var next_1_hours: Period?
        var next_6_hours: Period?
    }

    private struct Instant: Decodable {
        var details: Details?
    }

    private struct Details: Decodable {
        var air_temperature: Double?
        var wind_speed: Double?
        var wind_from_direction: Double?
        var relative_humidity: Double?
        var air_pressure_at_sea_level: Double?
    }

    private struct Period: Decodable {
        var summary: Summary?
        var details: PeriodDetails?
    }

    private struct Summary: Decodable {
        var symbol_code: String?
    }

    private struct PeriodDetails: Decodable {
        var precipitation_amount: Double?
    }
}
