import LakesFormat
import MeteoNewsFormat
/// The Next Wave app's own names for lakes MeteoNews names otherwise. The app looks lakes up by the names in its
/// `stations.json`, case-insensitively, and takes the first match: "Lac Léman" and "Lago di Lugano" are Genfersee and
/// Luganersee at MeteoNews. Pier answers both names (the app's as extra entries with the same readings, after
/// MeteoNews' lakes), so the app finds its lakes and clients that read MeteoNews' names keep working.
public enum LakeNames {
    /// The app's name and MeteoNews' for each lake whose names differ.
    public static let appNames: [(app: String, meteoNews: String)] = [("Lac Léman", "Genfersee"), ("Lago di Lugano", "Luganersee")]

    /// MeteoNews' lakes followed by an entry under the app's name for each that has one.
    public static func withAppNames(_ readings: [LakeReading]) -> [LakeReading] {
        var lakes = readings
        for (app, meteoNews) in appNames {
            guard let reading = readings.first(where: { $0.name == meteoNews }) else { continue }
            lakes.append(LakeReading(name: app, temperature: reading.temperature, waterLevel: reading.waterLevel))
        }
        return lakes
    }

    /// MeteoNews' name of the lake `name` names — MeteoNews' name or the app's, in any case — among `known`.
    public static func meteoNewsName(_ name: String, among known: some Sequence<String>) -> String? {
        let meteoNews = meteoNewsName(name).lowercased()
        return known.first { $0.lowercased() == meteoNews }
    }

    /// MeteoNews' name for the app's name of a lake; any other name as it is.
    public static func meteoNewsName(_ name: String) -> String {
        appNames.first { $0.app.lowercased() == name.lowercased() }?.meteoNews ?? name
    }
}
