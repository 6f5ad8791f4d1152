import Foundation
@testable import Lakes
@testable import LakesFormat
import Markup
@testable import MeteoNewsFormat
import UpstreamTesting
import XCTest

final class MeteoNewsPageParserTests: XCTestCase {
    private struct Expected: Decodable {
        var lakes: [LakeReading]
    }

    private func parse(rows: String) throws -> [LakeReading] {
        try MeteoNewsPageParser.parse(Array("<table><thead><tr><th>See</th></tr></thead><tbody>\(rows)</tbody></table>".utf8))
    }

    func testEveryFixtureParsesToItsExpectedReadings() throws {
        let pages = try Fixtures.pages("meteonews")
        XCTAssertGreaterThanOrEqual(pages.count, 2, "fixtures not found in \(Fixtures.root.path)")
        for page in pages {
            let expected = try JSONDecoder().decode(Expected.self, from: page.expected)
            XCTAssertEqual(try MeteoNewsPageParser.parse(page.body), expected.lakes, page.name)
        }
    }

    func testTemperatureShapes() {
        let cases: [(String, Double?)] = [
            ("14 °C", 14), ("14.5 °C", 14.5), ("14,5 °C", 14.5), ("14.5°C", 14.5), ("14.5 ° C", 14.5),
            ("-0.5 °C", -0.5), ("\u{2212}2 °C", -2), ("0 °C", 0), ("ca. 7 °C", 7), ("-", nil), ("", nil),
            ("k.A.", nil), ("–", nil), ("°C", nil), ("14", nil), ("12 / 14 °C", 14),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(MeteoNewsPageParser.temperature(in: text), expected, text)
        }
    }

    func testEntitiesUmlautsAndWhitespaceInCells() throws {
        let lakes = try parse(rows: """
            <tr><td><a href="#">Z&uuml;rich
               see</a></td><td>14,5&nbsp;&deg;C</td><td> 405.96 m.&uuml;.M. </td></tr>
            <tr><td><a href="#">L&#252;tzelsee</a></td><td>-</td><td>-</td></tr>
            <tr><td><a href="#"> Pfäffikersee </a></td><td>&#8722;1\u{202F}°C</td><td></td></tr>
            """)
        XCTAssertEqual(lakes, [
            LakeReading(name: "Zürich see", temperature: 14.5, waterLevel: "405.96 m.ü.M."),
            LakeReading(name: "Lützelsee", temperature: nil, waterLevel: nil),
            LakeReading(name: "Pfäffikersee", temperature: -1, waterLevel: nil),
        ])
    }

    func testVierwaldstaetterSeeIsRenamed() throws {
        let lakes = try parse(rows: #"<tr><td><a>Vierwaldst&auml;tter See</a></td><td>20 °C</td></tr>"#)
        XCTAssertEqual(lakes.map(\.name), ["Vierwaldstättersee"])
    }

    func testMissingAndExtraCellsAndHeaderRows() throws {
        let lakes = try parse(rows: """
            <tr><th>Zentralschweiz</th></tr>
            <tr><td colspan="3">Region Ost</td></tr>
            <tr><td>no link</td><td>10 °C</td></tr>
            <tr><td><a>Bodensee</a></td><td>21 °C</td></tr>
            <tr><td><a>Sihlsee</a></td><td>19 °C</td><td>889.10 m.ü.M.</td><td>extra</td><td>more</td></tr>
            """)
        XCTAssertEqual(lakes, [
            LakeReading(name: "Bodensee", temperature: 21, waterLevel: nil),
            LakeReading(name: "Sihlsee", temperature: 19, waterLevel: "889.10 m.ü.M."),
        ])
    }

    func testSeveralBodiesAndTablesAreAllRead() throws {
        let html = """
            <table><tbody><tr><td><a>A</a></td><td>1 °C</td></tr></tbody>
                   <tbody><tr><td><a>B</a></td><td>2 °C</td></tr></tbody></table>
            <table><tbody><tr><td><a>C</a></td><td>3 °C</td></tr></tbody></table>
            <table><tr><td><a>not in a tbody</a></td><td>4 °C</td></tr></table>
            """
        XCTAssertEqual(try MeteoNewsPageParser.parse(Array(html.utf8)).map(\.name), ["A", "B", "C"])
    }

    func testPageWithoutTableGivesNoRows() throws {
        XCTAssertEqual(try MeteoNewsPageParser.parse(Array("<html><body><p>Wartung</p></body></html>".utf8)), [])
    }

    func testGarbageIsATypedError() {
        XCTAssertThrowsError(try MeteoNewsPageParser.parse(Array("not html at all".utf8))) {
            XCTAssertNotNil($0 as? MarkupError)
        }
    }
}
