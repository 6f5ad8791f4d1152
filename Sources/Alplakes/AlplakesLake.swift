import AlplakesFormat
import Foundation

/// One lake as Pier holds it: its last good profile and surface series, and how its last fetch went.
public struct AlplakesLake: Sendable {
    public var key: String
    public var profile: AlplakesProfile
    public var series: AlplakesSeries
    public var fetchedAt: Date

    /// The app's display name for a lake key (its bundled mapping; the first name where a key has two).
    public static func name(of key: String) -> String {
        names[key] ?? key
    }

    /// The 27 distinct keys of the app's mapping of 29 lake names (`alplakes-lake-mapping.json`), in its order.
    public static let appLakes: [String] = mapping.map(\.key).reduce(into: []) { if !$0.contains($1) { $0.append($1) } }

    static let names: [String: String] = mapping.reduce(into: [:]) { if $0[$1.key] == nil { $0[$1.key] = $1.name } }

    private static let mapping: [(name: String, key: String)] = [
        ("Zürichsee", "upperzurich"), ("Vierwaldstättersee", "lucernealpnachersee"), ("Bodensee", "upperconstance"),
        ("Genfersee", "geneva"), ("Lac Léman", "geneva"), ("Thunersee", "thun"), ("Brienzersee", "brienz"), ("Lago Maggiore", "maggiore"),
        ("Luganersee", "upperlugano"), ("Lago di Lugano", "upperlugano"), ("Bielersee", "biel"), ("Neuenburgersee", "neuchatel"),
        ("Murtensee", "murten"), ("Zugersee", "zug"), ("Walensee", "walensee"), ("Hallwilersee", "hallwil"), ("Ägerisee", "aegeri"),
        ("Greifensee", "greifensee"), ("Sempachersee", "sempach"), ("Sarnersee", "sarnen"), ("Pfäffikersee", "pfaffikon"),
        ("Baldeggersee", "baldegg"), ("Sihlsee", "sihlsee"), ("Lauerzersee", "lauerz"), ("Türlersee", "turlersee"), ("Silsersee", "sils"),
        ("Silvaplanersee", "silvaplana"), ("St. Moritzersee", "stmoritz"), ("Lac de Joux", "joux"),
    ]
}
