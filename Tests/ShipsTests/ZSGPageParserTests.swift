import Foundation
import Markup
import Ships
import ShipsFormat
import UpstreamTesting
import XCTest

final class ZSGPageParserTests: XCTestCase {
    private struct Expected: Decodable {
        var date: String
        var routes: [ShipRoute]
    }

    private func parse(_ html: String) throws -> [ShipRoute] {
        try ZSGPageParser.parse(Array(html.utf8))
    }

    private func routes(_ pairs: [(String, String)]) -> [ShipRoute] {
        pairs.map { ShipRoute(shipName: $0.0, courseNumber: $0.1) }
    }

    func testEveryFixtureParsesToItsExpectedRoutes() throws {
        let pages = try Fixtures.pages("zsg")
        XCTAssertGreaterThanOrEqual(pages.count, 4, "fixtures not found in \(Fixtures.root.path)")
        for page in pages {
            let expected = try JSONDecoder().decode(Expected.self, from: page.expected)
            XCTAssertEqual(try ZSGPageParser.parse(page.body), expected.routes, page.name)
        }
    }

    func testBothCruiseShapes() throws {
        let html = """
            <div class="ship"><div class="legend"><a class="title">MS Helvetia</a></div>
              <span class="disposition"><span class="cruise"><span class="prefix">Kurs</span> <span>0101</span></span></span>
              <span class="disposition"><span class="prefix">Kurs</span><span class="cruise"> 0105 </span></span>
              <div class="disposition"><div class="cruise"><span class="time">10:05</span><span>7</span></div></div>
            </div>
            """
        XCTAssertEqual(try parse(html), routes([("MS Helvetia", "0101"), ("MS Helvetia", "0105"), ("MS Helvetia", "7")]))
    }

    func testNameIsCollapsedCutBeforeKursAndKeepsItsPrefix() throws {
        let html = """
            <div class="ship"><div class="legend"><a class="title">
                 DS   Stadt
              Z&uuml;rich&nbsp;Kurs 105, 106</a></div>
              <span class="disposition"><span class="cruise">1</span></span></div>
            <div class="ship"><div class="legend"><a class="title">EMS Pfannenstiel<!-- Kurs 3 --></a></div>
              <span class="disposition"><span class="cruise">3</span></span></div>
            """
        XCTAssertEqual(try parse(html), routes([("DS Stadt Zürich", "1"), ("EMS Pfannenstiel", "3")]))
    }

    func testRawAndEncodedUmlautsGiveTheSameName() throws {
        let raw = try parse(#"<div class="ship"><div class="legend"><a class="title">MS Wädenswil</a></div><span class="disposition"><span class="cruise">9</span></span></div>"#)
        let named = try parse(#"<div class="ship"><div class="legend"><a class="title">MS W&auml;denswil</a></div><span class="disposition"><span class="cruise">9</span></span></div>"#)
        let numeric = try parse(#"<div class="ship"><div class="legend"><a class="title">MS W&#228;denswil</a></div><span class="disposition"><span class="cruise">9</span></span></div>"#)
        XCTAssertEqual(raw, routes([("MS Wädenswil", "9")]))
        XCTAssertEqual(named, raw)
        XCTAssertEqual(numeric, raw)
    }

    func testClassesMatchAsTokens() throws {
        let html = """
            <div class="ship even"><div class="legend main"><a class="title big">MS Albis</a></div>
              <span class="disposition past"><span class="cruise">12</span></span></div>
            <div class="shipyard"><div class="legend"><a class="title">Not a ship</a></div>
              <span class="disposition"><span class="cruise">99</span></span></div>
            """
        XCTAssertEqual(try parse(html), routes([("MS Albis", "12")]))
    }

    func testDispositionsWithoutCourseAreSkipped() throws {
        let html = """
            <div class="ship"><div class="legend"><a class="title">MS Säntis</a></div>
              <span class="disposition"><span class="title">Kleine Seerundfahrt</span></span>
              <span class="disposition"><span class="cruise">  </span></span>
              <span class="disposition"><span class="cruise"><span></span></span></span>
              <span class="disposition"><span class="cruise">0042</span></span>
            </div>
            """
        XCTAssertEqual(try parse(html), routes([("MS Säntis", "0042")]))
    }

    func testShipWithoutCoursesYieldsNothing() throws {
        let html = #"<div class="ship"><div class="legend"><a class="title">MS Bachtel</a></div><div class="dispositions"></div></div>"#
        XCTAssertEqual(try parse(html), [])
    }

    func testFragmentWithZeroShipsAndEmptyBodyAreEmptyDays() throws {
        XCTAssertEqual(try parse(#"<div class="schiffeinsatz" data-date="30.11.2026"></div>"#), [])
        XCTAssertEqual(try ZSGPageParser.parse([]), [])
    }

    func testWholeDocumentAndNestedMarkupWork() throws {
        let html = """
            <!DOCTYPE html><html><head><title>ZSG</title></head><body>
            <div class="title">Page title outside any ship</div>
            <table><tr><td><div class="ship"><div class="legend"><a class="title"><b>MS</b> <i>Panta Rhei</i></a></div>
              <span class="disposition"><span class="cruise">12</span></span></div></td></tr></table>
            </body></html>
            """
        XCTAssertEqual(try parse(html), routes([("MS Panta Rhei", "12")]))
    }

    func testOnlyTheFirstLegendTitleNamesTheShip() throws {
        let html = """
            <div class="ship"><div class="legend"><a class="title">MS Limmat</a><span class="title">Second</span></div>
              <div class="legend"><a class="title">Other</a></div>
              <span class="disposition"><span class="cruise">4</span></span></div>
            """
        XCTAssertEqual(try parse(html), routes([("MS Limmat", "4")]))
    }

    func testGarbageIsATypedErrorNotACrash() {
        XCTAssertThrowsError(try ZSGPageParser.parse(Array(#"{"status":"maintenance"}"#.utf8))) { error in
            XCTAssertNotNil(error as? MarkupError)
        }
        XCTAssertThrowsError(try ZSGPageParser.parse([0x1F, 0x8B, 0x08, 0x00, 0x00]))
    }
}
