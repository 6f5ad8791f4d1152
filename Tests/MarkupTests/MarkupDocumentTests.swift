import Markup
import XCTest

final class MarkupDocumentTests: XCTestCase {
    private func html(_ text: String) throws -> MarkupDocument {
        try MarkupDocument.html(Array(text.utf8))
    }

    func testFragmentWithoutCharsetIsReadAsUTF8() throws {
        let document = try html(#"<div class="title">Zürich Bürkliplatz</div>"#)
        let nodes = try document.select("//div")
        XCTAssertEqual(nodes.map(\.text), ["Zürich Bürkliplatz"])
    }

    func testLatin1CanBeRequestedExplicitly() throws {
        let bytes: [UInt8] = Array("<p>Z".utf8) + [0xFC] + Array("rich</p>".utf8)
        let document = try MarkupDocument.html(bytes, encoding: "ISO-8859-1")
        XCTAssertEqual(try document.select("//p").first?.text, "Zürich")
    }

    func testEntitiesAreDecodedNamedAndNumeric() throws {
        let document = try html("<p>Z&uuml;rich &amp; L&#252;tzelsee&nbsp;&deg;C &#x2013; &lt;ok&gt;</p>")
        XCTAssertEqual(try document.select("//p").first?.text, "Zürich & Lützelsee °C – <ok>")
    }

    func testWhitespaceIsCollapsedIncludingNoBreakSpaces() throws {
        let document = try html("<p>\n  MS \t Linth\r\n  Kurs&nbsp;&nbsp;105\u{202F}x  </p>")
        XCTAssertEqual(try document.select("//p").first?.text, "MS Linth Kurs 105 x")
        XCTAssertEqual(try document.select("//p").first?.rawText.hasPrefix("\n  MS"), true)
    }

    func testTextIncludesChildElementsButNotComments() throws {
        let document = try html("<a>MS <b>Panta</b><!-- hidden --> Rhei</a>")
        XCTAssertEqual(try document.select("//a").first?.text, "MS Panta Rhei")
    }

    func testClassMatchingIsByWholeToken() throws {
        let document = try html(#"<div class="ship even">a</div><div class="shipyard">b</div><div class=" x  ship ">c</div>"#)
        let nodes = try document.select("//div[\(XPath.hasClass("ship"))]")
        XCTAssertEqual(nodes.map(\.text), ["a", "c"])
        XCTAssertEqual(nodes.map { $0.hasClass("even") }, [true, false])
        XCTAssertTrue(nodes[1].hasClass("ship"))
    }

    func testNativeClassAndNameWalksAgreeWithXPath() throws {
        let document = try html("""
            <div class="ship even"><p class="x ship">nested</p></div><div class="shipyard">no</div>
            <section><div class="\tship\n">third</div><a>one</a><span><a>two</a></span></section>
            """)
        let root = try XCTUnwrap(document.root)
        let native = root.descendants(withClass: "ship").map(\.text)
        XCTAssertEqual(native, try document.select("//*[\(XPath.hasClass("ship"))]").map(\.text))
        XCTAssertEqual(native, ["nested", "nested", "third"])
        XCTAssertEqual(root.firstDescendant(withClass: "ship")?.hasClass("even"), true)
        XCTAssertNil(root.firstDescendant(withClass: "missing"))
        XCTAssertEqual(root.descendants(named: "a").map(\.text), ["one", "two"])
    }

    func testRelativeQueriesStayInsideTheirNode() throws {
        let document = try html("<ul><li><span>1</span><span>2</span></li><li><span>3</span></li></ul>")
        let items = try document.select("//li")
        XCTAssertEqual(items.count, 2)
        XCTAssertEqual(try items[0].select("./span[last()]").map(\.text), ["2"])
        XCTAssertEqual(try items[1].select(".//span").map(\.text), ["3"])
        XCTAssertEqual(items[0].children.map(\.name), ["span", "span"])
    }

    func testAttributesAreDecoded() throws {
        let document = try html(#"<a href="/x?a=1&amp;b=2" title="M&uuml;hle">x</a>"#)
        let link = try XCTUnwrap(document.select("//a").first)
        XCTAssertEqual(link.attribute("href"), "/x?a=1&b=2")
        XCTAssertEqual(link.attribute("title"), "Mühle")
        XCTAssertNil(link.attribute("class"))
    }

    func testBrokenHTMLIsRecovered() throws {
        let document = try html("<table><tr><td>a<td>b</tr><tr><td>c</table><p>unclosed <b>bold")
        XCTAssertEqual(try document.select("//td").map(\.text), ["a", "b", "c"])
        XCTAssertEqual(try document.select("//b").first?.text, "bold")
    }

    func testEmptyDocumentIsATypedError() {
        XCTAssertThrowsError(try html("")) { XCTAssertEqual($0 as? MarkupError, .empty) }
        XCTAssertThrowsError(try html(" \n\t ")) { XCTAssertEqual($0 as? MarkupError, .empty) }
    }

    func testTextThatIsNotHTMLIsATypedError() {
        XCTAssertThrowsError(try html(#"{"error": "maintenance"}"#)) { error in
            guard case .notMarkup = error as? MarkupError else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try MarkupDocument.html([0x89, 0x50, 0x4E, 0x47, 0x00, 0x3C, 0x61])) { error in
            guard case .notMarkup = error as? MarkupError else { return XCTFail("\(error)") }
        }
    }

    func testHugeDocumentIsRefusedBeforeParsing() {
        let bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 2_000_001)
        XCTAssertThrowsError(try MarkupDocument.html(bytes, maximumBytes: 2_000_000)) {
            XCTAssertEqual($0 as? MarkupError, .tooLarge(bytes: 2_000_001, limit: 2_000_000))
        }
    }

    func testDeeplyNestedGarbageDoesNotCrash() throws {
        let text = String(repeating: "<div><span>", count: 5_000) + "x" + String(repeating: "</i>", count: 3_000)
        let document = try html(text)
        XCTAssertFalse(try document.select("//span").isEmpty)
    }

    func testInvalidXPathIsATypedError() throws {
        let document = try html("<p>x</p>")
        XCTAssertThrowsError(try document.select("//p[")) { XCTAssertEqual($0 as? MarkupError, .invalidXPath("//p[")) }
    }

    func testXMLWithNamespaces() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <wfs:FeatureCollection xmlns:wfs="http://www.opengis.net/wfs/2.0" xmlns:gml="http://www.opengis.net/gml/3.2">
              <wfs:member><gml:pos>60.17 24.94 </gml:pos></wfs:member>
              <wfs:member><gml:pos>61.0 25.0</gml:pos></wfs:member>
            </wfs:FeatureCollection>
            """
        let document = try MarkupDocument.xml(Array(xml.utf8))
        let positions = try document.select("//gml:pos", namespaces: ["gml": "http://www.opengis.net/gml/3.2"])
        XCTAssertEqual(positions.map(\.text), ["60.17 24.94", "61.0 25.0"])
        XCTAssertEqual(document.root?.name, "FeatureCollection")
    }

    func testMalformedXMLIsATypedError() {
        XCTAssertThrowsError(try MarkupDocument.xml(Array("<a><b></a>".utf8))) { error in
            guard case .malformed = error as? MarkupError else { return XCTFail("\(error)") }
        }
    }

    func testXMLExternalEntitiesAreNotLoaded() throws {
        let xml = """
            <?xml version="1.0"?>
            <!DOCTYPE r [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
            <r>&secret;</r>
            """
        let document = try MarkupDocument.xml(Array(xml.utf8))
        XCTAssertFalse(document.root?.rawText.contains("root:") ?? true)
    }
}
