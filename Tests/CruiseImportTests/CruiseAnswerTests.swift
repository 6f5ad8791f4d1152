import CruiseImport
import CruiseImportFormat
import Foundation
import XCTest

/// Gemini's answer envelope and the cruise it carries, in the shapes Google's generateContent documentation gives
/// (an answer, a blocked prompt, a stop before the end, the error envelope): read strictly, checked, repaired in nothing.
final class CruiseAnswerTests: XCTestCase {
    private func answer(_ text: String) -> String {
        let escaped = text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
        return #"{"candidates":[{"content":{"role":"model","parts":[{"text":"\#(escaped)"}]},"finishReason":"STOP","index":0}],"#
            + #""usageMetadata":{"promptTokenCount":812,"candidatesTokenCount":240,"totalTokenCount":1052},"modelVersion":"gemini-2.5-flash"}"#
    }

    static let cruise = """
        {"title":"Karibik Kreuzfahrt","shippingLine":"AIDA Cruises","ship":"AIDAperla","startDate":"2026-12-01","endDate":"2026-12-08",
         "cabinType":"Balkonkabine","cabinNumber":"8123","bookingNumber":"AB-4711","ports":[
         {"name":"La Romana","country":"Dominikanische Republik","arrivalDate":null,"arrivalTime":null,"departureDate":"2026-12-01","departureTime":"22:00","isSeaDay":false},
         {"name":"Seetag","isSeaDay":true},
         {"name":"Oranjestad","country":"Aruba","arrivalDate":"2026-12-03","arrivalTime":"08:00","departureDate":"2026-12-03","departureTime":"18:00"}]}
        """

    func testACleanAnswerIsTheAppsShapeWithEveryMember() throws {
        guard case .text(let text, let tokens) = try GeminiAnswer(Array(answer(Self.cruise).utf8)) else { return XCTFail("a text answer") }
        XCTAssertEqual(tokens, .init(prompt: 812, answer: 240))
        let cruise = try ExtractedCruise(modelJSON: text)
        XCTAssertEqual(cruise.ports.count, 3)
        XCTAssertEqual(cruise.ports[1], .init(name: "Seetag", country: nil, arrivalDate: nil, arrivalTime: nil, departureDate: nil, departureTime: nil, isSeaDay: true))
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(cruise.json.utf8)) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["title", "shippingLine", "ship", "startDate", "endDate", "cabinType", "cabinNumber", "bookingNumber", "ports"])
        let sea = try XCTUnwrap((object["ports"] as? [[String: Any]])?[1])
        XCTAssertEqual(Set(sea.keys), ["name", "country", "arrivalDate", "arrivalTime", "departureDate", "departureTime", "isSeaDay", "latitude", "longitude"], "every member present")
        XCTAssertTrue(sea["country"] is NSNull)
        XCTAssertEqual(object["bookingNumber"] as? String, "AB-4711")
    }

    func testRefusalsErrorsAndGarbageAreToldApart() throws {
        XCTAssertEqual(
            try GeminiAnswer(Array(#"{"error":{"code":429,"message":"Resource has been exhausted","status":"RESOURCE_EXHAUSTED"}}"#.utf8)),
            .error(code: 429, status: "RESOURCE_EXHAUSTED", reason: nil))
        XCTAssertEqual(
            try GeminiAnswer(Array(#"{"error":{"code":400,"message":"User location is not supported","status":"FAILED_PRECONDITION"}}"#.utf8)),
            .error(code: 400, status: "FAILED_PRECONDITION", reason: nil))
        // ErrorInfo's reason is kept, Google's message never (it may quote the booking); a reason that is not a word is
        // cut to one.
        XCTAssertEqual(try GeminiAnswer(Array(#"{"error":{"code":400,"message":"API key not valid.","status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"API_KEY_INVALID","domain":"googleapis.com"}]}}"#.utf8)), .error(code: 400, status: "INVALID_ARGUMENT", reason: "API_KEY_INVALID"))
        XCTAssertEqual(
            try GeminiAnswer(Array(#"{"error":{"code":400,"status":"INVALID_ARGUMENT","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"BAD Muster"}]}}"#.utf8)),
            .error(code: 400, status: "INVALID_ARGUMENT", reason: "BAD"))
        XCTAssertEqual(
            try GeminiAnswer(Array(#"{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":9}}"#.utf8)),
            .refused(reason: "prompt blocked: SAFETY", tokens: .init(prompt: 9, answer: 0)))
        XCTAssertEqual(
            try GeminiAnswer(Array(#"{"candidates":[{"finishReason":"MAX_TOKENS","content":{"parts":[{"text":"{"}]}}]}"#.utf8)),
            .cut(reason: "stopped: MAX_TOKENS", tokens: .init(prompt: 0, answer: 0)))
        XCTAssertEqual(
            try GeminiAnswer(Array(#"{"candidates":[{"finishReason":"SAFETY","content":{"parts":[]}}]}"#.utf8)),
            .refused(reason: "stopped: SAFETY", tokens: .init(prompt: 0, answer: 0)), "a stop for the content is a refusal, not a cut")
        for garbage in ["<html>502</html>", "[]", #"{"candidates":[]}"#, #"{"candidates":[{"content":{"parts":[{"inlineData":{}}]}}]}"#, #"{"error":{"message":"x"}}"#] {
            XCTAssertThrowsError(try GeminiAnswer(Array(garbage.utf8)), garbage)
        }
    }

    func testAModelAnswerThatIsNotACruiseIsNamedNotRepaired() throws {
        let cases: [(String, String)] = [
            ("```json\n{\"title\":\"x\",\"ports\":[]}\n```", "the model's answer is not JSON"),
            (#"{"startDate":"2026-02-30","ports":[]}"#, "startDate is not a date (YYYY-MM-DD): 2026-02-30"),
            (#"{"startDate":"2026-12-08","endDate":"2026-12-01","ports":[]}"#, "endDate is before startDate"),
            (#"{"ports":[{"name":"Aruba","arrivalTime":"25:00"}]}"#, "ports[0].arrivalTime is not a time (HH:MM): 25:00"),
            (#"{"ports":[{"country":"Aruba"}]}"#, "ports[0] has no name"),
            (#"{"ports":[{"name":"Aruba","isSeaDay":"no"}]}"#, "ports[0].isSeaDay is not a boolean"),
            (#"{"title":"\#(String(repeating: "x", count: 201))","ports":[]}"#, "title is longer than 200 characters"),
            ("{\"ports\":[" + Array(repeating: #"{"name":"P"}"#, count: 101).joined(separator: ",") + "]}", "more than 100 ports"),
        ]
        for (text, reason) in cases {
            XCTAssertThrowsError(try ExtractedCruise(modelJSON: text), text) { error in
                XCTAssertTrue((error as? ExtractedCruise.Invalid)?.reason.hasPrefix(reason) == true, "\(error) for \(text.prefix(60))")
            }
        }
        // Nothing known is not an error: every member null, no ports.
        XCTAssertEqual(try ExtractedCruise(modelJSON: "{}").json, #"{"title":null,"shippingLine":null,"ship":null,"startDate":null,"endDate":null,"cabinType":null,"cabinNumber":null,"bookingNumber":null,"ports":[]}"#)
    }
}

/// What the route accepts, and what Pier asks Gemini.
final class CruiseRequestTests: XCTestCase {
    func testBadInputIsRefusedBeforeAnyUpstreamCall() {
        let cases: [(String, String)] = [
            ("not json", "the body is not JSON"), ("[]", "the body is not an object"), ("{}", "text is required"),
            (#"{"text":5}"#, "text must be a string"), (#"{"text":"  \n "}"#, "text is empty"),
            (#"{"text":"\#(String(repeating: "ä", count: 20_001))"}"#, "text is longer than 20000 characters"),
        ]
        for (body, reason) in cases {
            XCTAssertThrowsError(try CruiseImportRequest(body: Array(body.utf8)), body.prefix(30).description) { error in
                XCTAssertEqual((error as? CruiseImportRequest.Problem)?.reason.hasPrefix(reason), true, "\(error)")
            }
        }
        // 20,000 umlauts are 40,000 bytes and still within the bound: it counts characters.
        XCTAssertEqual(try CruiseImportRequest(body: Array(#"{"text":"\#(String(repeating: "ä", count: 20_000))"}"#.utf8)).text.count, 20_000)
        // Escaped, an emoji is 12 bytes of JSON: 20,000 of them (240,000 bytes) are still 20,000 characters.
        let emoji = String(repeating: #"\ud83d\udea2"#, count: 20_000)
        XCTAssertEqual(try CruiseImportRequest(body: Array(#"{"text":"\#(emoji)"}"#.utf8)).text.unicodeScalars.count, 20_000)
        XCTAssertThrowsError(try CruiseImportRequest(body: Array(#"{"text":"\#(emoji)\#(String(repeating: " ", count: 2000))"}"#.utf8))) { error in
            XCTAssertEqual((error as? CruiseImportRequest.Problem)?.reason.hasPrefix("the body is larger than 241024 bytes"), true, "\(error)")
        }
        // A letter and a combining mark are two characters, as JSON Schema's maxLength counts them.
        let combining = String(repeating: "a\u{0308}", count: 10_001)
        XCTAssertThrowsError(try CruiseImportRequest(body: Array(#"{"text":"\#(combining)"}"#.utf8)))
    }

    func testTheRequestAsksForStructuredOutputInTheAppsShape() throws {
        let body = GeminiRequest.body(for: "Buchungsbestätigung AB-4711")
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
        let config = try XCTUnwrap(object["generationConfig"] as? [String: Any])
        XCTAssertEqual(config["responseMimeType"] as? String, "application/json")
        XCTAssertEqual(config["temperature"] as? Int, 0)
        XCTAssertEqual(config["maxOutputTokens"] as? Int, 8192, "each answer's cost is bounded")
        let schema = try XCTUnwrap(config["responseSchema"] as? [String: Any])
        let properties = try XCTUnwrap(schema["properties"] as? [String: Any])
        XCTAssertEqual(Set(properties.keys), ["title", "shippingLine", "ship", "startDate", "endDate", "cabinType", "cabinNumber", "bookingNumber", "ports"])
        let port = try XCTUnwrap(((properties["ports"] as? [String: Any])?["items"] as? [String: Any])?["properties"] as? [String: Any])
        XCTAssertEqual(Set(port.keys), ["name", "country", "arrivalDate", "arrivalTime", "departureDate", "departureTime", "isSeaDay"])
        let prompt = try XCTUnwrap((((object["contents"] as? [[String: Any]])?.first?["parts"] as? [[String: Any]])?.first?["text"]) as? String)
        XCTAssertTrue(prompt.hasSuffix("Buchungsbestätigung AB-4711"))
    }
}
