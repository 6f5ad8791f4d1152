import Foundation
import HTTPTesting
import UpstreamTesting
import XCTest

/// `pier promo-tiles import` and `/v1/promo-tiles` through the real binary and PostgreSQL, on two replicas.
final class PromoTilesEndToEndTests: EndToEndTestCase {
    private func importTiles(_ text: String, _ options: [String] = []) throws -> (status: Int32, output: String) {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("pier-tiles-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        return try ChildProcess.run(PierProcess.binary.path, ["promo-tiles", "import"] + options + [file.path], environment: [
            "DATABASE_URL": database.childURL, "PIER_MIGRATIONS_DIR": PierProcess.migrationsDirectory, "LOG_LEVEL": "error",
        ])
    }

    private func tiles(_ pier: PierProcess) throws -> AppPromoTiles? {
        let response = try RawClient.request(port: pier.port, "/v1/promo-tiles")
        guard response.status == 200 else { return nil }
        return try AppPromoTiles.decode(response.body)
    }

    func testAnImportedSetIsServedByEveryReplicaAsTheAppDecodesIt() throws {
        let settings = ["PIER_FETCH": "off"]
        let first = try startPier(settings)
        let second = try startPier(settings)
        // None imported: 404, the app's "no tiles".
        let none = try RawClient.request(port: first.port, "/v1/promo-tiles")
        XCTAssertEqual(none.status, 404)
        XCTAssertEqual(none.bodyText, #"{"error":"no promo tiles"}"#)

        // A file the app could not read is refused whole, each problem named; nothing changes.
        let bad = try importTiles(#"{"tiles": [{"id": "a", "title": "A", "text": "x", "imageUrl": "https://x.ch/a.png"}, {"id": "b", "text": "y"}]}"#)
        XCTAssertNotEqual(bad.status, 0)
        XCTAssertTrue(bad.output.contains("tile 1 (a): the app does not read imageUrl (the app reads image)"), bad.output)
        XCTAssertTrue(bad.output.contains("tile 2 (b): title is required"), bad.output)
        let good = """
            {"version": 2, "tiles": [{"id": "guide", "title": "Wake guide", "text": "Read it first.", "image": "https://nextwaveapp.ch/g.png",
             "link": "https://nextwaveapp.ch/guide", "validFrom": "2026-06-01T00:00:00+02:00", "targetOS": "both"}]}
            """
        let checked = try importTiles(good, ["--check"])
        XCTAssertEqual(checked.status, 0, checked.output)
        XCTAssertTrue(checked.output.contains("1 promo tiles (version 2) are valid; nothing imported"), checked.output)
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(try RawClient.request(port: second.port, "/v1/promo-tiles").status, 404, "a check imports nothing")

        let imported = try importTiles(good)
        XCTAssertEqual(imported.status, 0, imported.output)
        XCTAssertTrue(imported.output.contains("imported 1 promo tiles (version 2)"), imported.output)
        for pier in [first, second] {
            var served: AppPromoTiles?
            XCTAssertTrue(try eventually(within: 10) {
                served = try tiles(pier)
                return served != nil
            }, "every replica serves the new set within seconds")
            XCTAssertEqual(served?.version, 2)
            XCTAssertEqual(served?.tiles.map(\.id), ["guide"])
            XCTAssertEqual(served?.tiles.first?.image, "https://nextwaveapp.ch/g.png")
            XCTAssertEqual(served?.tiles.first?.validFrom, Date(timeIntervalSince1970: 1_780_264_800))
        }
        let answer = try RawClient.request(port: second.port, "/v1/promo-tiles")
        XCTAssertEqual(answer.header("cache-control"), "public, max-age=300")
        let tag = try XCTUnwrap(answer.header("etag"))
        XCTAssertEqual(try RawClient.request(port: second.port, "/v1/promo-tiles", headers: [("If-None-Match", tag)]).status, 304)

        // Replaced whole: an empty set shows no tiles, on every replica.
        XCTAssertEqual(try importTiles(#"{"tiles": []}"#).status, 0)
        for pier in [first, second] {
            XCTAssertTrue(try eventually(within: 10) { try tiles(pier)?.tiles.isEmpty == true }, "the empty set replaced the old one")
        }
        XCTAssertNotEqual(try RawClient.request(port: second.port, "/v1/promo-tiles", headers: [("If-None-Match", tag)]).status, 304)
        XCTAssertEqual(first.stop(), 0)
        XCTAssertEqual(second.stop(), 0)

        // A stored set that no longer reads is not served, and never keeps the service from starting.
        _ = try database.connection().query(#"UPDATE promo_tile_sets SET document = '{"tiles":[{"id":1}]}'"#)
        let third = try startPier(settings)
        XCTAssertEqual(try RawClient.request(port: third.port, "/v1/promo-tiles").status, 404)
        XCTAssertEqual(third.stop(), 0)
    }
}
