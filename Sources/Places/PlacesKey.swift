import Feature
import Foundation
import SharedAnswers

/// A places request as Pier asks Geoapify for it: a point (rounded to 1e-5°, about a metre) and the rest of
/// the request — radius, category set (sorted: any order is one request), limit and language. Requests
/// within ``PlacesService/Settings/reuseMetres`` of a stored one with the same rest reuse its answer.
public struct PlacesKey: SharedAnswerKey {
    public struct Parameters: Sendable, Hashable, CustomStringConvertible {
        public var radius: Int
        /// The categories sorted, without repeats, joined by commas (as Geoapify and `near_params` take them): one
        /// `String` per key, not one per category (made on every request, cached or not).
        public var categoryList: String
        public var limit: Int
        public var lang: String

        /// Sorted, without repeats.
        public var categories: [String] { categoryList.split(separator: ",").map(String.init) }

        public init(radius: Int, categories: [String], limit: Int, lang: String) {
            self.init(radius: radius, categoryList: Array(Set(categories)).sorted().joined(separator: ","), limit: limit, lang: lang)
        }

        /// `categoryList`: already sorted, without repeats, joined by commas.
        init(radius: Int, categoryList: String, limit: Int, lang: String) {
            (self.radius, self.categoryList, self.limit, self.lang) = (radius, categoryList, limit, lang)
        }

        /// `r=5000;c=…;l=50;lang=de`: the stored `near_params`.
        public var description: String { "r=\(radius);c=\(categoryList);l=\(limit);lang=\(lang)" }
    }

    public var latitudeE5: Int
    public var longitudeE5: Int
    public var parameters: Parameters

    public init(latitude: Double, longitude: Double, parameters: Parameters) {
        latitudeE5 = Int((latitude * 1e5).rounded())
        longitudeE5 = Int((longitude * 1e5).rounded())
        self.parameters = parameters
    }

    /// The point and the radius tell the keys held at once apart; `==` compares the categories, limit and language
    /// too (hashing every category's string was most of a cached answer's lookup).
    public func hash(into hasher: inout Hasher) {
        hasher.combine(latitudeE5)
        hasher.combine(longitudeE5)
        hasher.combine(parameters.radius)
    }

    public var latitude: Double { Double(latitudeE5) / 1e5 }
    public var longitude: Double { Double(longitudeE5) / 1e5 }

    public var storageKey: String { "\(Self.degrees(latitudeE5)),\(Self.degrees(longitudeE5));\(parameters)" }
    public var description: String { storageKey }

    public var location: SharedAnswerLocation? {
        SharedAnswerLocation(parameters: parameters.description, latitude: latitude, longitude: longitude)
    }

    /// Geoapify's price: one credit per 20 places asked.
    public var credits: Int { (parameters.limit + 19) / 20 }

    /// `49.45776` from `4945776`, exactly (no binary rounding in keys and URLs).
    static func degrees(_ e5: Int) -> String {
        let sign = e5 < 0 ? "-" : ""
        let magnitude = e5.magnitude
        let fraction = String(magnitude % 100_000)
        return "\(sign)\(magnitude / 100_000).\(String(repeating: "0", count: 5 - fraction.count))\(fraction)"
    }
}
