import Basics
import Foundation
import XCTest

final class OrderedJSONEncoderTests: XCTestCase {
    struct Figures: Encodable {
        let zeta: Int
        let alpha: String?
        let share: Double
        let whole: Double
        let tiny: Double
        let flags: [Bool]
        let nested: Nested
    }

    struct Nested: Encodable {
        let path: String
        let infinite: Double
        let decimal: FixedDecimal
    }

    struct First: Encodable { let a = 1 }
    struct Second: Encodable { let b = "two" }

    func testMembersKeepTheirOrderAndAbsentOptionalsAreNull() throws {
        let figures = Figures(
            zeta: 1, alpha: nil, share: 0.25, whole: 50, tiny: 1e-7, flags: [true, false],
            nested: Nested(path: "a/b \"c\"\n", infinite: .infinity, decimal: FixedDecimal(0.5, digits: 3)))
        XCTAssertEqual(
            try OrderedJSONEncoder.string(figures),
            #"{"zeta":1,"alpha":null,"share":0.25,"whole":50,"tiny":1e-07,"flags":[true,false],"#
                + #""nested":{"path":"a/b \"c\"\n","infinite":null,"decimal":0.500}}"#)
        // What it writes is JSON.
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(try OrderedJSONEncoder.encode(figures))))
    }

    func testMergedValuesAreOneObjectAndNamedMembersKeepTheGivenOrder() throws {
        XCTAssertEqual(try OrderedJSONEncoder.string(MergedObject([First(), nil, Second()])), #"{"a":1,"b":"two"}"#)
        XCTAssertEqual(try OrderedJSONEncoder.string(OrderedObject([("z", 1), ("a", 2), ("m", 3)])), #"{"z":1,"a":2,"m":3}"#)
        XCTAssertEqual(try OrderedJSONEncoder.string(MergedObject([])), "{}")
        XCTAssertEqual(try OrderedJSONEncoder.string([String?.none, "x"]), #"[null,"x"]"#)
    }
}
