import Foundation
@testable import PlacesFormat
import UpstreamTesting
import XCTest

@testable import Places

/// The cleaning Pier does once for everyone, checked against the fixture's expected answer and the app's model.
final class PlacesCollectionTests: XCTestCase {
    func json(_ bytes: [UInt8]) throws -> NSDictionary {
        try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary)
    }

    func testTheNuernbergAnswerBecomesTheExpectedOneAndTheAppDecodesIt() throws {
        let collection = try PlacesCollection(parsing: try Fixtures.bytes("geoapify", "places-nuernberg.json"), places: true)
        XCTAssertEqual(collection.count, 14)
        XCTAssertEqual(collection.dropped, [.duplicate, .nameless])
        XCTAssertEqual(try json(collection.body), try json(try Fixtures.bytes("geoapify", "places-nuernberg.expected.json")))
        let app = try JSONDecoder().decode(AppPlaces.self, from: Data(collection.body))
        let henkersteg = try XCTUnwrap(app.features.first { $0.properties.name == "Henkersteg" })
        XCTAssertEqual(henkersteg.properties.wiki_and_media?.wikipedia, "de:Henkersteg", "the first takes the duplicate's wiki_and_media")
        XCTAssertEqual(app.features.filter { $0.properties.name == "Henkersteg" }.count, 1)
        XCTAssertEqual(app.features.first?.properties.datasource?.attribution, "© OpenStreetMap contributors", "attribution passed on")
    }

    /// Features the app could not decode would fail its whole answer: they are left out, the rest kept.
    func testFeaturesWithoutAPointOrWithAWrongTypeAreLeftOut() throws {
        let text = """
            {"type":"FeatureCollection","features":[
            {"type":"Feature","properties":{"name":"No geometry"}},
            {"type":"Feature","properties":{"name":"Polygon"},"geometry":{"type":"Polygon","coordinates":[[[1,2],[3,4],[5,6],[1,2]]]}},
            {"type":"Feature","properties":{"name":"Short"},"geometry":{"type":"Point","coordinates":[11.0]}},
            {"type":"Feature","properties":{"name":"Lat as text","lat":"49.4"},"geometry":{"type":"Point","coordinates":[11.0,49.4]}},
            {"type":"Feature","properties":{"name":"Bad wiki","wiki_and_media":{"wikipedia":7}},"geometry":{"type":"Point","coordinates":[11.0,49.4]}},
            {"type":"Feature","properties":{"name":"unknown"},"geometry":{"type":"Point","coordinates":[11.0,49.4]}},
            {"type":"Feature","properties":{"name":"  "},"geometry":{"type":"Point","coordinates":[11.0,49.4]}},
            {"type":"Feature","properties":{"name":"Kept","city":null,"extra":{"any":[1,2]}},"geometry":{"type":"Point","coordinates":[11.0,49.4]}}
            ]}
            """
        let collection = try PlacesCollection(parsing: Array(text.utf8), places: true)
        XCTAssertEqual(collection.count, 1)
        XCTAssertEqual(collection.dropped, [.noPoint, .noPoint, .noPoint, .wrongType, .wrongType, .nameless, .nameless])
        let app = try JSONDecoder().decode(AppPlaces.self, from: Data(collection.body))
        XCTAssertEqual(app.features.map(\.properties.name), ["Kept"])
        // Geocoding answers keep nameless features (only the app's decoding matters there).
        XCTAssertEqual(try PlacesCollection(parsing: Array(text.utf8), places: false).count, 3)
    }

    func testGarbageAndAnswersWithNothingUsableAreProblems() {
        XCTAssertThrowsError(try PlacesCollection(parsing: Array("<html>".utf8), places: true)) { error in
            guard case .notJSON = error as? PlacesCollection.Problem else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try PlacesCollection(parsing: Array(#"{"type":"Feature"}"#.utf8), places: true)) { error in
            XCTAssertEqual(error as? PlacesCollection.Problem, .notACollection)
        }
        let unusable = #"{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"x"}}]}"#
        XCTAssertThrowsError(try PlacesCollection(parsing: Array(unusable.utf8), places: true)) { error in
            XCTAssertEqual(error as? PlacesCollection.Problem, .nothingUsable(dropped: 1))
        }
        let empty = try? PlacesCollection(parsing: Array(#"{"type":"FeatureCollection","features":[]}"#.utf8), places: true)
        XCTAssertEqual(empty?.count, 0, "no places is an answer")
    }
}
