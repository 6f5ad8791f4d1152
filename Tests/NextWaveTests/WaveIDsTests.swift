import PostgRESTFormat
import XCTest

/// `wave_checkin_counts`' argument as what it means: the same waves however a body writes them are one key.
final class WaveIDsTests: XCTestCase {
    private func waves(_ text: String) throws -> WaveIDs { try WaveIDs(body: Array(text.utf8)) }

    func testTheSameWavesWrittenAnyWayAreOneKey() throws {
        let plain = try waves(#"{"wave_ids":["b","a","b"]}"#)
        XCTAssertEqual(plain.ids, ["a", "b"])
        XCTAssertEqual(try waves(" {\n \"wave_ids\" :\t[ \"a\" , \"b\" ] }" + String(repeating: " ", count: 5000)), plain, "padded")
        XCTAssertEqual(try waves(#"{"wave_ids":["\u0062","a"]}"#), plain, "escaped: read by the JSON reader, the same key")
        XCTAssertEqual(WaveIDs(["a", "b"]), plain)
        XCTAssertEqual(try WaveIDs(reading: Array(#"{"wave_ids":["b","a"]}"#.utf8)), plain)
        XCTAssertEqual(try waves(#"{"wave_ids":[]}"#).count, 0)
        XCTAssertEqual(try waves(#"{"wave_ids":["zürich_1","a","Z"]}"#).ids, ["Z", "a", "zürich_1"], "non-ASCII: the JSON reader, sorted by bytes")
    }

    func testWhatIsNotTheArgumentIsRefusedAsPostgRESTRefusesIt() {
        func code(_ text: String) -> String? {
            do { _ = try waves(text); return nil } catch { return (error as? PostgRESTError)?.code }
        }
        XCTAssertEqual(code(#"{"wave_ids":["a"]"#), "PGRST102")
        XCTAssertEqual(code(#"{"wave_ids":["a"],"x":1}"#), "PGRST202")
        XCTAssertEqual(code(#"{"wave_ids":"a"}"#), "22023")
        XCTAssertEqual(code(#"{"wave_ids":[""]}"#), "22023")
        XCTAssertEqual(code("{\"wave_ids\":[\"" + String(repeating: "x", count: 201) + "\"]}"), "22023")
        XCTAssertEqual(code("{\"wave_ids\":[" + (0...500).map { "\"w\($0)\"" }.joined(separator: ",") + "]}"), "22023", "501 waves")
        XCTAssertEqual(code("{\"wave_ids\":[\"a\"]" + String(repeating: " ", count: WaveIDs.maximumBody) + "}"), "PGRST413")
    }
}
