import Feature
import Geography
import HTTPServer
import XCTest

final class CoordinateTests: XCTestCase {
    private func parse(_ query: String) throws(Coordinate.Problem) -> Coordinate {
        guard let parameters = QueryParameters(raw: Substring(query)) else { throw .missing(parameter: "query") }
        return try Coordinate(parameters)
    }

    func testAValidQueryGivesOneValueWithItsCacheKey() throws {
        let point = try parse("lat=60.17&lon=24.94")
        XCTAssertEqual(point.latitude, 60.17)
        XCTAssertEqual(point.longitude, 24.94)
        XCTAssertEqual(point.description, "60.17,24.94")
        XCTAssertEqual(Coordinate(latitude: 60.17, longitude: 24.94), point)
    }

    func testEachProblemNamesItsParameterAndIsA400() {
        let cases: [(String, Coordinate.Problem)] = [
            ("lon=1", .missing(parameter: "lat")),
            ("lat=1&lon=", .missing(parameter: "lon")),
            ("lat=abc&lon=1", .notANumber(parameter: "lat", text: "abc")),
            ("lat=nan&lon=1", .notFinite(parameter: "lat")),
            ("lat=1&lon=inf", .notFinite(parameter: "lon")),
            ("lat=91&lon=1", .outOfRange(parameter: "lat", range: -90...90)),
            ("lat=1&lon=-180.5", .outOfRange(parameter: "lon", range: -180...180)),
        ]
        for (query, expected) in cases {
            XCTAssertThrowsError(try parse(query), query) { error in
                XCTAssertEqual(error as? Coordinate.Problem, expected, query)
                let http = (error as? Coordinate.Problem)?.httpError
                XCTAssertEqual(http?.status, .badRequest)
                let parameter: String
                switch expected {
                case .missing(let name), .notANumber(let name, _), .notFinite(let name), .outOfRange(let name, _): parameter = name
                }
                XCTAssertTrue(http?.message.hasPrefix(parameter) ?? false, "\(query): \(http?.message ?? "")")
            }
        }
    }

    func testTheMemberwiseInitRefusesWhatIsNotAPointOnEarth() {
        XCTAssertNil(Coordinate(latitude: .nan, longitude: 0))
        XCTAssertNil(Coordinate(latitude: 0, longitude: 181))
        XCTAssertNotNil(Coordinate(latitude: -90, longitude: 180))
    }
}
