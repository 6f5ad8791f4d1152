import Markup
import XCTest

final class MarkupEventsTests: XCTestCase {
    /// Records every element and the text of those named `wanted`.
    final class Recorder: MarkupEventHandler {
        var starts: [String] = []
        var texts: [String] = []
        var ids: [String] = []

        func start(_ element: MarkupElement) -> Bool {
            starts.append(element.name.string)
            if let id = element.attribute("id") { ids.append(id) }
            return element.name.is("value") || element.name.is("note")
        }

        func end(_ name: MarkupName, text: String?) {
            if let text { texts.append(text) }
        }
    }

    func testElementsTextsAndPrefixedAttributes() throws {
        let xml = """
            <?xml version="1.0"?>
            <r xmlns:gml="http://www.opengis.net/gml/3.2"><gml:v gml:id="a-1"><value>1.5</value></gml:v>
            <value>A &amp; B <![CDATA[<c>]]></value><note>x<b>y</b>z</note><other>skipped</other></r>
            """
        let recorder = Recorder()
        try MarkupEvents.parse(xml: Array(xml.utf8), handler: recorder)
        XCTAssertEqual(recorder.starts, ["r", "v", "value", "value", "note", "b", "other"])
        XCTAssertEqual(recorder.ids, ["a-1"])
        XCTAssertEqual(recorder.texts, ["1.5", "A & B <c>", "xyz"])
    }

    func testMalformedEmptyAndHugeAreTypedErrors() {
        XCTAssertThrowsError(try MarkupEvents.parse(xml: Array("<a><b></a>".utf8), handler: Recorder())) {
            guard case .malformed = $0 as? MarkupError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try MarkupEvents.parse(xml: Array("  ".utf8), handler: Recorder())) {
            XCTAssertEqual($0 as? MarkupError, .empty)
        }
        XCTAssertThrowsError(try MarkupEvents.parse(xml: [UInt8](repeating: 0x41, count: 100), handler: Recorder(), maximumBytes: 10)) {
            XCTAssertEqual($0 as? MarkupError, .tooLarge(bytes: 100, limit: 10))
        }
    }

    func testExternalEntitiesAreNotLoaded() throws {
        let xml = "<?xml version=\"1.0\"?><!DOCTYPE r [<!ENTITY s SYSTEM \"file:///etc/passwd\">]><r><value>&s;</value></r>"
        let recorder = Recorder()
        try? MarkupEvents.parse(xml: Array(xml.utf8), handler: recorder)
        XCTAssertFalse(recorder.texts.joined().contains("root:"))
    }
}
