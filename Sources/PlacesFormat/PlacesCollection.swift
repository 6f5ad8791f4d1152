import Foundation
import Parsing

/// A Geoapify answer (a GeoJSON `FeatureCollection`) made safe for the app's `Codable` model once, on the
/// server: features the app could not decode (no Point geometry, a property of the wrong type — either would
/// fail the **whole** answer on the phone) are left out, and for places also nameless features and duplicates
/// (the same name within 0.0001° in both directions, about 11 m × 7 m at 49° N; the first wins and takes the
/// `wiki_and_media` of a duplicate when it has none — the app's own rules, moved here). Everything else is
/// passed on byte for byte as Geoapify wrote it.
public struct PlacesCollection: Sendable {
    public enum Problem: Error, Sendable, Equatable, CustomStringConvertible {
        case notJSON(String)
        case notACollection
        /// Geoapify's answer had features, none of which the app could decode.
        case nothingUsable(dropped: Int)

        public var description: String {
            switch self {
            case .notJSON(let why): "Geoapify's answer is not JSON: \(why)"
            case .notACollection: "Geoapify's answer is not a FeatureCollection with a features array"
            case .nothingUsable(let dropped): "none of Geoapify's \(dropped) features could be decoded by the app"
            }
        }
    }

    /// Why a feature was left out, for the metrics and the logs.
    public enum Dropped: String, Sendable, CaseIterable {
        case noPoint = "no_point"
        case wrongType = "wrong_type"
        case nameless
        case duplicate
    }

    /// The body to serve.
    public let body: [UInt8]
    public let count: Int
    public let dropped: [Dropped]

    /// The app reads these `properties` members with these types (all optional; `null` is fine).
    static let stringProperties: Set<String> = [
        "name", "formatted", "address_line1", "address_line2", "city", "postcode", "country", "country_code", "place_id",
    ]
    static let stringListProperties: Set<String> = ["categories", "details"]
    static let numberProperties: Set<String> = ["lon", "lat"]
    static let stringObjectProperties: [String: Set<String>] = [
        "datasource": ["sourcename", "attribution", "license", "url"], "wiki_and_media": ["wikidata", "wikipedia"],
    ]
    /// Names the app treats as no name.
    static let placeholderNames: Set<String> = ["unknown", "unnamed place"]
    static let duplicateDegrees = 0.0001

    /// - Parameter places: a places answer (names required, duplicates merged); geocoding answers are only
    ///   made decodable.
    public init(parsing text: [UInt8], places: Bool) throws(Problem) {
        let root: JSONNode
        do { root = try JSONScanner.parse(text) } catch { throw .notJSON(error.description) }
        guard root["type"]?.string == "FeatureCollection", let featuresNode = root["features"], let features = featuresNode.elements else {
            throw .notACollection
        }
        var kept: [(node: JSONNode, name: String?, latitude: Double, longitude: Double, wiki: JSONNode?)] = []
        var dropped: [Dropped] = []
        var spliced: [Int: JSONNode] = [:]
        for feature in features {
            guard let properties = feature["properties"], properties.isObject, let point = Self.point(feature, in: text) else {
                dropped.append(.noPoint)
                continue
            }
            guard Self.decodable(properties, in: text) else {
                dropped.append(.wrongType)
                continue
            }
            // Trimmed as the app trims it.
            let name = properties["name"]?.string?.trimmingCharacters(in: .whitespacesAndNewlines)
            if places {
                guard let name, !name.isEmpty, !Self.placeholderNames.contains(name.lowercased()) else {
                    dropped.append(.nameless)
                    continue
                }
                if let first = kept.firstIndex(where: {
                    $0.name == name && abs($0.latitude - point.latitude) < Self.duplicateDegrees
                        && abs($0.longitude - point.longitude) < Self.duplicateDegrees
                }) {
                    dropped.append(.duplicate)
                    if kept[first].wiki == nil, spliced[first] == nil, let wiki = properties["wiki_and_media"], wiki.isObject {
                        spliced[first] = wiki
                    }
                    continue
                }
            }
            kept.append((feature, name, point.latitude, point.longitude, properties["wiki_and_media"]))
        }
        if kept.isEmpty, !features.isEmpty, dropped.contains(where: { $0 == .noPoint || $0 == .wrongType }) {
            throw .nothingUsable(dropped: dropped.count)
        }
        var body: [UInt8] = []
        body.reserveCapacity(text.count)
        body += text[..<featuresNode.range.lowerBound]
        body.append(UInt8(ascii: "["))
        for (index, feature) in kept.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            if let wiki = spliced[index], let properties = feature.node["properties"] {
                // The duplicate's wiki_and_media, as the first member of the first one's properties.
                let open = properties.range.lowerBound + 1
                body += text[feature.node.range.lowerBound..<open]
                body += Array("\"wiki_and_media\":".utf8) + text[wiki.range]
                if !properties.isEmptyObject { body.append(UInt8(ascii: ",")) }
                body += text[open..<feature.node.range.upperBound]
            } else {
                body += text[feature.node.range]
            }
        }
        body.append(UInt8(ascii: "]"))
        body += text[featuresNode.range.upperBound...]
        self.body = body
        count = kept.count
        self.dropped = dropped
    }

    /// The feature's Point, when its geometry is one the app decodes (`type` and `[lon, lat, …]` numbers).
    static func point(_ feature: JSONNode, in text: [UInt8]) -> (latitude: Double, longitude: Double)? {
        guard feature["type"]?.string != nil, let geometry = feature["geometry"], geometry["type"]?.string == "Point",
            let coordinates = geometry["coordinates"]?.elements, coordinates.count >= 2,
            let longitude = coordinates[0].number(in: text), let latitude = coordinates[1].number(in: text),
            coordinates.allSatisfy({ $0.number(in: text) != nil })
        else { return nil }
        return (latitude, longitude)
    }

    /// Whether every member the app reads has the type it decodes.
    static func decodable(_ properties: JSONNode, in text: [UInt8]) -> Bool {
        guard case .object(let members) = properties.kind else { return false }
        for member in members where !member.value.isNull {
            let (name, value) = (member.key, member.value)
            if stringProperties.contains(name) {
                guard value.string != nil else { return false }
            } else if stringListProperties.contains(name) {
                guard let elements = value.elements, elements.allSatisfy({ $0.string != nil }) else { return false }
            } else if numberProperties.contains(name) {
                guard value.number(in: text) != nil else { return false }
            } else if let names = stringObjectProperties[name] {
                guard case .object(let inner) = value.kind else { return false }
                guard inner.allSatisfy({ !names.contains($0.key) || $0.value.string != nil || $0.value.isNull }) else { return false }
            }
        }
        return true
    }
}
