import Foundation
import Parsing
import PlacesFormat

// Geoapify answers (the strict JSON scanner and the places cleaning) on arbitrary bytes, as places and as geocoding.
// Properties: no crash; an accepted answer is JSON whose features are all ones the app's model decodes (a Point
// with numeric coordinates, the read properties typed), none without a name in a places answer, no two with the
// same name within 0.0001°, and cleaning it again changes nothing.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = Array(UnsafeBufferPointer(start: data, count: size))
    for places in [true, false] {
        guard let collection = try? PlacesCollection(parsing: text, places: places) else { continue }
        guard let root = try? JSONScanner.parse(collection.body), let features = root["features"]?.elements else {
            preconditionFailure("the cleaned answer is not a collection")
        }
        precondition(features.count == collection.count, "count differs")
        var seen: [(String, Double, Double)] = []
        for feature in features {
            guard let coordinates = feature["geometry"]?["coordinates"]?.elements, coordinates.count >= 2,
                let longitude = coordinates[0].number(in: collection.body), let latitude = coordinates[1].number(in: collection.body)
            else { preconditionFailure("a feature without a point") }
            guard let properties = feature["properties"], properties.isObject else { preconditionFailure("no properties") }
            guard places else { continue }
            guard let name = properties["name"]?.string, !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                preconditionFailure("a nameless place")
            }
            precondition(!seen.contains { $0.0 == name && abs($0.1 - latitude) < 0.0001 && abs($0.2 - longitude) < 0.0001 }, "a duplicate is left")
            seen.append((name, latitude, longitude))
        }
        guard let again = try? PlacesCollection(parsing: collection.body, places: places) else { preconditionFailure("the cleaned answer is refused") }
        precondition(again.count == collection.count, "cleaning again dropped features")
    }
    return 0
}
