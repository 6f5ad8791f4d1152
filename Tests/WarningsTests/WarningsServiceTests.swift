import DatabaseTesting
import Feature
import Foundation
import Geography
import Metrics
import Scheduling
import UpstreamHTTP
import UpstreamTesting
@testable import Warnings
import WarningsFormat
import XCTest


/// The feed read into PostgreSQL through the local warnings double, and the points of `expected.json` looked up
/// with PostGIS, publication after publication.
final class WarningsServiceTests: ServiceTestCase {
    private var service: WarningsService!
    private var board: SourceStatusBoard!

    override func setUp() async throws {
        try await super.setUp()
        board = SourceStatusBoard()
        service = WarningsService(
            client: WarningsClient(feedURL: upstream.fmiWarningsURL, client: UpstreamClient()), store: WarningStore(pool: pool), board: board,
            staleAfter: .seconds(450))
    }

    /// `expected.json`'s points: name → (point, identifiers in force per publication).
    private func points() throws -> [(name: String, point: Coordinate, previous: [String], current: [String])] {
        let data = try Data(contentsOf: Fixtures.root.appendingPathComponent("fmi-warnings/expected.json"))
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let points = try XCTUnwrap(object["points"] as? [String: [String: Any]])
        return try points.sorted { $0.key < $1.key }.map { name, fact in
            let point = try XCTUnwrap(Coordinate(latitude: try XCTUnwrap(fact["lat"] as? Double), longitude: try XCTUnwrap(fact["lon"] as? Double)))
            return (name, point, try XCTUnwrap(fact["previous"] as? [String]), try XCTUnwrap(fact["current"] as? [String]))
        }
    }

    private func identifiers(_ list: WarningList) throws -> [String] {
        let array = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(list.json.utf8)) as? [[String: Any]])
        return array.compactMap { $0["id"] as? String }
    }

    private func documentRequests() -> Int {
        upstream.requests(.fmiWarnings).filter { !$0.path.hasPrefix("/cap/feed/") }.count
    }

    func testEachPublicationReplacesTheLastAndPointsGetWhatIsInForce() async throws {
        upstream.set(.fmiWarnings, .previousPublication)
        _ = try await service.refresh()
        XCTAssertEqual(documentRequests(), 8)
        for point in try points() {
            let list = try await service.warnings(at: point.point, language: .en)
            XCTAssertEqual(try identifiers(list), point.previous, "previous publication at \(point.name)")
        }

        upstream.set(.fmiWarnings, .normal)
        let summary = try await service.refresh()
        // Documents are fetched once: only the two the current publication adds.
        XCTAssertEqual(documentRequests(), 10)
        XCTAssertEqual(summary.itemCount, 5, "in force: 4101.2, 4102.1, 4103.1, 4104.1, 4105.1 — and not the expired 4107.1")
        for point in try points() {
            let list = try await service.warnings(at: point.point, language: .en)
            XCTAssertEqual(try identifiers(list), point.current, "current publication at \(point.name)")
        }
        let rows = try await pool.query("SELECT count(*)::int AS n FROM weather_warnings")
        XCTAssertEqual(try rows.first?.decode(Int.self, "n"), 7, "the documents that left the feed are gone")
    }

    /// Lookups answer from the set held in memory: the same entries, in the same order, as PostGIS gives — on the
    /// fixtures' points (every vertex of every area too: an edge is inside for both) and on 10,000 random points over
    /// Finland, in both publications; and they ask no database once the set is loaded.
    func testTheSetInMemoryAnswersAsPostGISDoes() async throws {
        let now = Date()
        for publication in [FixtureUpstream.Mode.previousPublication, .normal] {
            upstream.set(.fmiWarnings, publication)
            _ = try await service.refresh(now: now)
            let index = WarningIndex(try await service.store.inForce(), ticket: 1)
            XCTAssertGreaterThan(index.warnings.count, 3)
            var probes = try points().map { ($0.point.latitude, $0.point.longitude) }
            for warning in index.warnings {
                for polygon in warning.area.polygons { probes += polygon.rings.joined().map { ($0.y, $0.x) } }
            }
            var generator = SystemRandomNumberGenerator()
            probes += (0..<10_000).map { _ in (Double.random(in: 59.5...70.2, using: &generator), Double.random(in: 19.0...31.6, using: &generator)) }
            var covered = 0
            for (latitude, longitude) in probes {
                let language = WarningLanguage.allCases[abs(Int(latitude * 1000)) % WarningLanguage.allCases.count]
                let stored = try await service.store.lookup(latitude: latitude, longitude: longitude, language: language, now: now)
                let held = index.lookup(latitude: latitude, longitude: longitude, language: language, now: now)
                XCTAssertEqual(held.map(\.entry), stored.map(\.entry), "at \(latitude), \(longitude)")
                XCTAssertEqual(held.map(\.expires), stored.map(\.expires))
                if !stored.isEmpty { covered += 1 }
            }
            XCTAssertGreaterThan(covered, 100, "the probes reach the areas")
        }
        // Through the service: a loaded set answers a new point without a query.
        let metrics = MetricsRegistry()
        let counted = WarningsService(client: service.client, store: service.store, board: board, staleAfter: .seconds(450), metrics: metrics)
        try await counted.reload(now: now)
        let helsinki = try identifiers(try await counted.warnings(at: try XCTUnwrap(Coordinate(latitude: 60.17, longitude: 24.94)), language: .en, now: now))
        XCTAssertFalse(helsinki.isEmpty, "Helsinki has warnings in force")
        XCTAssertTrue(metrics.render().contains("pier_warnings_lookups_total{from=\"database\"} 0"), metrics.render())
    }

    func testTheFeedIsAskedConditionallyAndAnUnchangedFeedCostsNoDocument() async throws {
        _ = try await service.refresh()
        let documents = documentRequests()
        let generation = service.generation
        _ = try await service.refresh()
        let feedRequests = upstream.requests(.fmiWarnings).filter { $0.path.hasPrefix("/cap/feed/") }
        XCTAssertEqual(feedRequests.count, 2)
        XCTAssertNotNil(feedRequests[1].headers["if-none-match"], "the validator of the last answer is sent")
        XCTAssertEqual(documentRequests(), documents)
        XCTAssertEqual(service.generation, generation, "a 304 keeps what memory holds")
    }

    func testHelsinkiHasTheOrangeWindWarningFirstInEveryLanguage() async throws {
        _ = try await service.refresh()
        let helsinki = try XCTUnwrap(Coordinate(latitude: 60.17, longitude: 24.94))
        for language in WarningLanguage.allCases {
            let list = try await service.warnings(at: helsinki, language: language)
            let array = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(list.json.utf8)) as? [[String: Any]])
            XCTAssertEqual(array.first?["color"] as? String, "orange")
            XCTAssertEqual(array.first?["severity"] as? String, "severe")
            XCTAssertEqual(array.first?["language"] as? String, language.rawValue)
            XCTAssertEqual(array.first?["event_code"] as? String, "wind")
        }
        // Past the orange warning's expiry (+14 h) and the traffic one's (+10 h), nothing is served.
        let list = try await service.warnings(at: helsinki, language: .en, now: Date().addingTimeInterval(15 * 3600))
        XCTAssertEqual(list.count, 0)
        let soon = try await service.warnings(at: helsinki, language: .fi)
        XCTAssertLessThan(soon.until, Date().addingTimeInterval(11 * 3600), "held no longer than the first expiry")
    }

    func testAFailingFeedKeepsTheLastSetAndIsStale() async throws {
        _ = try await service.refresh()
        XCTAssertFalse(service.isStale(now: Date()))
        upstream.set(.fmiWarnings, .status(503))
        do {
            _ = try await service.refresh()
            XCTFail("a failing feed fails the run")
        } catch {}
        let tampere = try XCTUnwrap(Coordinate(latitude: 61.5, longitude: 23.76))
        let kept = try await service.warnings(at: tampere, language: .en)
        XCTAssertEqual(try identifiers(kept), ["urn:oid:2.49.0.1.246.0.0.5.4105.1"])
        XCTAssertTrue(service.isStale(now: Date().addingTimeInterval(451)))
    }

    func testAnUnreadableDocumentIsLeftOutAndTheRunIsSuspect() async throws {
        upstream.set(.fmiWarnings, .unreadableDocument)
        do {
            _ = try await service.refresh()
            XCTFail("an unreadable document makes the run suspect")
        } catch let error as FetchError {
            XCTAssertEqual(error.outcome, .suspect)
            XCTAssertTrue(error.storedSomething)
        }
        let tampere = try XCTUnwrap(Coordinate(latitude: 61.5, longitude: 23.76))
        let helsinki = try XCTUnwrap(Coordinate(latitude: 60.17, longitude: 24.94))
        let atTampere = try await service.warnings(at: tampere, language: .en)
        let atHelsinki = try await service.warnings(at: helsinki, language: .en)
        XCTAssertEqual(atTampere.count, 0)
        XCTAssertEqual(atHelsinki.count, 2, "the rest is published")
        let rows = try await pool.query("SELECT count(*)::int AS n FROM weather_warnings WHERE url LIKE '%4105.1.xml'")
        XCTAssertEqual(try rows.first?.decode(Int.self, "n"), 0, "garbage stays out of the database")
    }

    func testALinkToAnotherHostIsNotFollowed() async throws {
        let feed = Array(try Data(contentsOf: Fixtures.root.appendingPathComponent("fmi-warnings/feed/rss_en-GB.rss")))
        let elsewhere = String(decoding: feed, as: UTF8.self).replacingOccurrences(of: "https://alerts.fmi.fi/", with: "http://192.0.2.1/")
        upstream.set(.fmiWarnings, .answer(status: 200, headers: ["Content-Type": "application/rss+xml"], body: Array(elsewhere.utf8)))
        _ = try await service.refresh()
        XCTAssertEqual(documentRequests(), 0)
        let rows = try await pool.query("SELECT count(*)::int AS n FROM weather_warnings")
        XCTAssertEqual(try rows.first?.decode(Int.self, "n"), 0)
    }
}
