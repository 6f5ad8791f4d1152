import Feature
import HTTPServer

/// Reads `/v1/places`'s query as the Smart City Guide app sends it to Geoapify: `lat`/`lon` or Geoapify's
/// `filter=circle:lon,lat,radius` (longitude first), `radius`, `categories`, `limit`, `lang` (`apiKey` is
/// accepted and ignored: the key is Pier's). Every problem is a `400` naming the parameter.
public enum PlacesQuery {
    public static let radiusRange = 1...20_000
    public static let limitRange = 1...100
    public static let defaultLimit = 50
    public static let defaultRadius = 5000
    public static let defaultLang = "de"
    public static let maximumCategories = 20

    public static func key(_ query: QueryParameters) throws -> PlacesKey {
        var point: Coordinate?
        var radius: Int?
        if let filter = query["filter"] {
            let circle = try Self.circle(filter)
            point = circle.point
            radius = circle.radius
        }
        if query["lat"] != nil || query["lon"] != nil || point == nil {
            let given = try Coordinate(query)
            if let point, GeoDistance.metres(point.latitude, point.longitude, given.latitude, given.longitude) > 1 {
                throw HTTPError(.badRequest, "lat/lon and filter=circle: name different points; send one of them")
            }
            point = given
        }
        if let text = query["radius"] {
            guard let value = Int(text), radiusRange.contains(value) else {
                throw HTTPError(.badRequest, "radius must be whole metres between 1 and 20000, not '\(text.prefix(20))'")
            }
            if let radius, radius != value { throw HTTPError(.badRequest, "radius and filter=circle: give different radii") }
            radius = value
        }
        guard let point else { throw HTTPError(.badRequest, "lat and lon (or filter=circle:lon,lat,radius) are required") }
        return PlacesKey(
            latitude: point.latitude, longitude: point.longitude,
            parameters: .init(radius: radius ?? defaultRadius, categories: try categories(query["categories"]), limit: try limit(query["limit"]), lang: try lang(query["lang"])))
    }

    /// `circle:lon,lat,radius`: Geoapify's filter (the only one Pier takes).
    static func circle(_ filter: String) throws -> (point: Coordinate, radius: Int) {
        let problem = HTTPError(.badRequest, "filter must be circle:lon,lat,radius (longitude first, radius 1…20000 m), not '\(filter.prefix(60))'")
        guard filter.hasPrefix("circle:") else { throw problem }
        let parts = filter.dropFirst("circle:".count).split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 3, let longitude = Double(parts[0]), let latitude = Double(parts[1]),
            let point = Coordinate(latitude: latitude, longitude: longitude), let radius = Self.wholeMetres(parts[2]),
            radiusRange.contains(radius)
        else { throw problem }
        return (point, radius)
    }

    /// The app writes the radius as an integer; `5000.0` is accepted as the same.
    private static func wholeMetres(_ text: Substring) -> Int? {
        if let value = Int(text) { return value }
        guard let value = Double(text), value.isFinite, value == value.rounded(), abs(value) < 1e9 else { return nil }
        return Int(value)
    }

    /// Leaf categories only (`tourism.attraction`): a top-level one (`tourism`) is refused, Pier's rule, which
    /// keeps cached answers keyed by what the app asks and their sizes bounded; the app's retry with
    /// `tourism.attraction` then works as it does against Geoapify.
    static func categories(_ text: String?) throws -> [String] {
        guard let text, !text.isEmpty else {
            throw HTTPError(.badRequest, "categories is required (comma-separated, e.g. tourism.attraction,leisure.park)")
        }
        let items = text.split(separator: ",", omittingEmptySubsequences: false)
        guard items.count <= maximumCategories else { throw HTTPError(.badRequest, "at most \(maximumCategories) categories") }
        var set = Set<String>()
        for item in items {
            let category = String(item)
            guard !category.isEmpty,
                category.utf8.allSatisfy({ ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 46 || $0 == 95 }),
                !category.hasPrefix("."), !category.hasSuffix("."), !category.contains("..")
            else {
                throw HTTPError(.badRequest, "categories must be Geoapify category names (lower-case, dotted), not '\(category.prefix(40))'")
            }
            guard category.contains(".") else {
                throw HTTPError(
                    .badRequest, "top-level category '\(category)' is not accepted; ask for leaf categories such as \(category).attraction or tourism.attraction")
            }
            set.insert(category)
        }
        return set.sorted()
    }

    static func limit(_ text: String?) throws -> Int {
        guard let text else { return defaultLimit }
        guard let value = Int(text), limitRange.contains(value) else {
            throw HTTPError(.badRequest, "limit must be a whole number between 1 and 100, not '\(text.prefix(20))'")
        }
        return value
    }

    /// A two-letter language code (Geoapify's `lang`), lower-cased.
    public static func lang(_ text: String?) throws -> String {
        guard let text else { return defaultLang }
        let lower = text.lowercased()
        guard lower.utf8.count == 2, lower.utf8.allSatisfy({ $0 >= 97 && $0 <= 122 }) else {
            throw HTTPError(.badRequest, "lang must be a two-letter language code such as de or en, not '\(text.prefix(20))'")
        }
        return lower
    }
}
