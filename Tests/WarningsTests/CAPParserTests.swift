@testable import CAPFormat
import Foundation
import Parsing
import UpstreamHTTP
import UpstreamTesting
@testable import Warnings
import XCTest


/// The CAP parser on every constructed document, checked against the facts `expected.json` lists for it.
final class CAPParserTests: XCTestCase {
    private static let root = Fixtures.root.appendingPathComponent("fmi-warnings")

    private func document(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: Self.root.appendingPathComponent("cap").appendingPathComponent(path)))
    }

    private func expected() throws -> [String: [String: Any]] {
        let data = try Data(contentsOf: Self.root.appendingPathComponent("expected.json"))
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try XCTUnwrap(object["warnings"] as? [String: [String: Any]])
    }

    func testEveryDocumentReadsAsItsFactsSay() throws {
        let facts = try expected()
        XCTAssertEqual(facts.count, 10)
        for (identifier, fact) in facts {
            let path = try XCTUnwrap(fact["url_path"] as? String)
            let alert = try CAPParser.parse(try document(String(path.dropFirst("/cap/".count))))
            XCTAssertEqual(alert.identifier, identifier)
            XCTAssertEqual(alert.messageType.rawValue, fact["msgType"] as? String, identifier)
            XCTAssertEqual(alert.references, fact["references"] as? [String], identifier)
            XCTAssertEqual(alert.infos.map(\.language).sorted(), (fact["languages"] as? [String])?.sorted(), identifier)
            XCTAssertEqual(alert.severity.map { "\($0)".capitalized }, fact["severity"] as? String, identifier)
            XCTAssertEqual(alert.severity?.color, fact["color"] as? String, identifier)
            XCTAssertEqual(alert.onset.map(Timestamp.iso8601), fact["onset"] as? String, identifier)
            XCTAssertEqual(alert.expires.map(Timestamp.iso8601), fact["expires"] as? String, identifier)
            XCTAssertEqual(alert.infos.first { $0.language == "en-GB" }?.headline, (fact["headline"] as? [String: String])?["en"], identifier)
            XCTAssertEqual(alert.infos.first?.eventCode, fact["event"] as? String, identifier)
            XCTAssertFalse(alert.rings.isEmpty, identifier)
        }
    }

    func testAnUpdateWithItsInfosInAnotherOrder() throws {
        let alert = try CAPParser.parse(try document("2026/11-23/09-55-00Z/4101.2.xml"))
        XCTAssertEqual(alert.messageType, .update)
        XCTAssertEqual(alert.references, ["urn:oid:2.49.0.1.246.0.0.5.4101.1"])
        XCTAssertEqual(alert.infos.map(\.language), ["en-GB", "fi-FI", "sv-FI"])
        XCTAssertEqual(alert.severity, .severe)
        // 14:00+02:00 is 12:00 UTC: the offset written is the one used.
        XCTAssertEqual(alert.onset.map(Timestamp.iso8601), "2026-11-23T12:00:00Z")
        XCTAssertEqual(alert.rings.count, 1)
        XCTAssertEqual(alert.rings[0].first, CAPPoint(latitude: 60.08, longitude: 24.45))
        XCTAssertEqual(alert.rings[0].count, 10)
    }

    func testTwoPolygonsInOneAreaAreBothKept() throws {
        let alert = try CAPParser.parse(try document("2026/11-23/06-00-00Z/4104.1.xml"))
        XCTAssertEqual(alert.rings.count, 2)
        let area = try XCTUnwrap(StoredWarning.wellKnownText(alert.rings))
        XCTAssertTrue(area.hasPrefix("MULTIPOLYGON(((") && area.contains(")),(("), area)
    }

    func testPolygonsArePutLongitudeFirstAndClosed() {
        let ring = [CAPPoint(latitude: 60, longitude: 24), CAPPoint(latitude: 61, longitude: 24), CAPPoint(latitude: 61, longitude: 25)]
        XCTAssertEqual(StoredWarning.wellKnownText([ring]), "MULTIPOLYGON(((24.0 60.0,24.0 61.0,25.0 61.0,24.0 60.0)))")
        XCTAssertNil(StoredWarning.wellKnownText([Array(ring.prefix(2))]), "two points make no area")
    }

    func testAWarningMissingALanguageFallsBackToOneItHas() throws {
        let alert = try CAPParser.parse(try document("2026/11-23/05-00-00Z/4105.1.xml"))
        let stored = StoredWarning(url: "u", alert: alert)
        let english = try XCTUnwrap(stored.entries[.en])
        XCTAssertTrue(english.contains(#""language":"fi""#), english)
        XCTAssertTrue(english.contains(#""headline":"Keltainen"#), english)
        XCTAssertTrue(try XCTUnwrap(stored.entries[.sv]).contains(#""language":"sv""#))
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(english.utf8)) as? [String: Any])
        XCTAssertEqual(
            Set(object.keys), ["id", "event", "event_code", "severity", "color", "onset", "expires", "headline", "description", "web", "language"])
        XCTAssertEqual(object["severity"] as? String, "moderate")
        XCTAssertEqual(object["color"] as? String, "yellow")
        XCTAssertEqual(object["event_code"] as? String, "pedestrianSafety")
    }

    func testACancelIsReadWithWhatItReferences() throws {
        let alert = try CAPParser.parse(try document("2026/11-23/09-55-00Z/4106.2.xml"))
        XCTAssertEqual(alert.messageType, .cancel)
        XCTAssertEqual(alert.references, ["urn:oid:2.49.0.1.246.0.0.5.4106.1"])
    }

    func testWhatCannotBeAWarningIsRefusedWithItsReason() throws {
        let valid = String(decoding: try document("2026/11-23/09-30-00Z/4102.1.xml"), as: UTF8.self)
        XCTAssertThrowsError(try CAPParser.parse(Array("<html><body>Maintenance</body></html>".utf8))) { error in
            XCTAssertEqual(error as? WarningsError, .unexpectedRoot("html", expected: "alert"))
        }
        XCTAssertThrowsError(try CAPParser.parse(Array("<alert".utf8)))
        let noIdentifier = valid.replacingOccurrences(of: #"<identifier>[^<]*</identifier>"#, with: "", options: .regularExpression)
        XCTAssertThrowsError(try CAPParser.parse(Array(noIdentifier.utf8))) { XCTAssertEqual($0 as? WarningsError, .missing("identifier")) }
        let unknownType = valid.replacingOccurrences(of: "<msgType>Alert</msgType>", with: "<msgType>Ack</msgType>")
        XCTAssertThrowsError(try CAPParser.parse(Array(unknownType.utf8))) { XCTAssertEqual($0 as? WarningsError, .missing("msgType")) }
        // An unknown severity is skipped quietly, as the profile asks: with none left, the document is no warning.
        let unknownSeverity = valid.replacingOccurrences(of: #"<severity>[A-Za-z]*</severity>"#, with: "<severity>Unknown</severity>", options: .regularExpression)
        XCTAssertThrowsError(try CAPParser.parse(Array(unknownSeverity.utf8))) { error in
            guard case .noUsableInfo = error as? WarningsError else { return XCTFail("\(error)") }
        }
        // Unknown elements anywhere are skipped.
        let extra = valid.replacingOccurrences(of: "<info>", with: "<info><futureElement>x</futureElement>")
        XCTAssertEqual(try CAPParser.parse(Array(extra.utf8)).identifier, "urn:oid:2.49.0.1.246.0.0.5.4102.1")
    }

    func testTheFeedGivesItsItemsLinks() throws {
        let feed = Array(try Data(contentsOf: Self.root.appendingPathComponent("feed/rss_en-GB.rss")))
        let links = try WarningFeedParser.links(feed)
        XCTAssertEqual(links.count, 7)
        XCTAssertTrue(links.allSatisfy { $0.hasPrefix("https://alerts.fmi.fi/cap/2026/") })
        let atom = Array(try Data(contentsOf: Self.root.appendingPathComponent("feed/atom_en-GB.xml")))
        XCTAssertThrowsError(try WarningFeedParser.links(atom)) { XCTAssertEqual($0 as? WarningsError, .unexpectedRoot("feed", expected: "rss")) }
    }

    func testOnlyTheFeedsOwnHostIsFollowed() {
        let client = WarningsClient(feedURL: "https://alerts.fmi.fi/cap/feed/rss_en-GB.rss", client: UpstreamClient())
        XCTAssertTrue(client.isOwn("https://alerts.fmi.fi/cap/2026/11-23/09-30-00Z/4102.1.xml"))
        XCTAssertFalse(client.isOwn("https://example.com/cap/x.xml"))
        XCTAssertFalse(client.isOwn("http://alerts.fmi.fi/cap/x.xml"))
        XCTAssertFalse(client.isOwn("https://alerts.fmi.fi:8443/cap/x.xml"))
    }
}
