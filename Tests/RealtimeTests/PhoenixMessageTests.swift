import Parsing
import XCTest

@testable import Realtime

final class PhoenixMessageTests: XCTestCase {
    func testBothSerializersAreRead() throws {
        let v1 = try PhoenixMessage(Array(#"{"topic":"realtime:a","event":"phx_join","payload":{"x":1},"ref":"1","join_ref":"1"}"#.utf8), version: .v1)
        XCTAssertEqual([v1.topic, v1.event, v1.ref, v1.joinRef], ["realtime:a", "phx_join", "1", "1"])
        let v2 = try PhoenixMessage(Array(#"["3","4","realtime:a","phx_join",{}]"#.utf8), version: .v2)
        XCTAssertEqual([v2.topic, v2.event, v2.ref, v2.joinRef], ["realtime:a", "phx_join", "4", "3"])
        // The Python client's heartbeat: a null ref, no join_ref.
        let heartbeat = try PhoenixMessage(Array(#"{"topic":"phoenix","event":"heartbeat","payload":{},"ref":null}"#.utf8), version: .v1)
        XCTAssertNil(heartbeat.ref)
        XCTAssertNil(heartbeat.joinRef)
    }

    func testWhatIsNotAMessageIsRefused() {
        let cases: [(String, PhoenixVersion, PhoenixMessage.Problem)] = [
            ("not json", .v1, .notJSON),
            (#"["1","1","t","e",{}]"#, .v1, .shape("a message is a JSON object in protocol 1.0.0")),
            (#"{"topic":"t","event":"e","payload":{}}"#, .v2, .shape("a message is an array of five in protocol 2.0.0")),
            (#"["1","1","t","e"]"#, .v2, .shape("a message is an array of five in protocol 2.0.0")),
            (#"{"topic":1,"event":"e","payload":{}}"#, .v1, .shape("topic must be a string")),
            (#"{"topic":"t","event":"e","payload":[]}"#, .v1, .shape("payload must be an object")),
            (#"{"topic":"t","event":"e","payload":{},"ref":5}"#, .v1, .shape("ref must be a string or null")),
        ]
        for (text, version, expected) in cases {
            XCTAssertThrowsError(try PhoenixMessage(Array(text.utf8), version: version), text) { XCTAssertEqual($0 as? PhoenixMessage.Problem, expected, text) }
        }
    }

    func testMessagesAreWrittenInTheSocketsSerializer() {
        XCTAssertEqual(
            PhoenixMessage.encode(joinRef: "1", ref: nil, topic: "realtime:a", event: "system", payload: "{}", version: .v2),
            #"["1",null,"realtime:a","system",{}]"#)
        // Phoenix's V1 serializer writes no join_ref.
        XCTAssertEqual(
            PhoenixMessage.encode(joinRef: "1", ref: "2", topic: "realtime:a", event: "phx_reply", payload: "{}", version: .v1),
            #"{"event":"phx_reply","payload":{},"ref":"2","topic":"realtime:a"}"#)
    }
}
