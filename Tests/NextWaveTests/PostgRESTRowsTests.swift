import PostgRESTFormat
import XCTest

/// A `POST /rest/v1/<table>` body as PostgREST reads it.
final class PostgRESTRowsTests: XCTestCase {
    func testOneObjectIsOneRowItsValuesAsText() throws {
        let rows = try PostgRESTRows(json: Array(#"{"wave_id":"w","level_m":405.96,"is_first_of_day":true,"display_name":null}"#.utf8), columns: nil)
        XCTAssertEqual(rows.columns, ["wave_id", "level_m", "is_first_of_day", "display_name"])
        XCTAssertEqual(rows.rows, [[.text("w"), .number("405.96"), .bool(true), .null]])
        XCTAssertEqual(rows.rows[0].map(\.text), ["w", "405.96", "true", nil])
    }

    func testAListMustShareItsKeysUnlessColumnsNamesThem() throws {
        XCTAssertThrowsError(try PostgRESTRows(json: Array(#"[{"a":1},{"b":2}]"#.utf8), columns: nil)) { error in
            XCTAssertEqual((error as? PostgRESTError)?.code, "PGRST102")
        }
        let rows = try PostgRESTRows(json: Array(#"[{"a":1,"x":9},{"b":2}]"#.utf8), columns: ["a", "b"])
        XCTAssertEqual(rows.rows, [[.number("1"), .null], [.null, .number("2")]], "columns= takes those keys, a missing one is null")
    }

    func testWhatIsNoRowIsRefused() {
        for body in ["", "[1]", #"{"a":{"b":1}}"#, #"{"A-B":1}"#, #"{"a":1,"a":2}"#, "{}", "not json"] {
            XCTAssertThrowsError(try PostgRESTRows(json: Array(body.utf8), columns: nil), body)
        }
        let many = "[" + Array(repeating: #"{"a":1}"#, count: PostgRESTRows.maximumRows + 1).joined(separator: ",") + "]"
        XCTAssertThrowsError(try PostgRESTRows(json: Array(many.utf8), columns: nil))
    }
}

/// The auth server's request bodies.
final class AuthRequestBodyTests: XCTestCase {
    func testOnlyAnonymousSignUpsAndShortRefreshTokens() throws {
        for body in ["", "{}", #"{"data":{},"gotrue_meta_security":{"captcha_token":null}}"#, #"{"email":null}"#] {
            XCTAssertNoThrow(try AuthRequestBody.signup(Array(body.utf8)), body)
        }
        XCTAssertThrowsError(try AuthRequestBody.signup(Array(#"{"email":"a@b.c","password":"x"}"#.utf8))) {
            XCTAssertEqual($0 as? AuthRequestBody.Problem, .notAnonymous("email"))
        }
        XCTAssertThrowsError(try AuthRequestBody.signup(Array("[]".utf8))) { XCTAssertEqual($0 as? AuthRequestBody.Problem, .notJSON) }
        XCTAssertEqual(try AuthRequestBody.refreshToken(Array(#"{"refresh_token":"abc"}"#.utf8)), "abc")
        for body in ["{}", #"{"refresh_token":""}"#, #"{"refresh_token":5}"#, "{\"refresh_token\":\"\(String(repeating: "a", count: 201))\"}"] {
            XCTAssertThrowsError(try AuthRequestBody.refreshToken(Array(body.utf8)), body)
        }
    }

    func testColumnsNamingAColumnTwiceAreRefused() {
        XCTAssertThrowsError(try PostgRESTRows(json: Array(#"{"a":1}"#.utf8), columns: ["a", "a"]))
    }
}
