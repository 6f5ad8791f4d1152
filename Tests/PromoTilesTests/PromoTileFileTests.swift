import Foundation
import HTTPServer
import UpstreamTesting
import XCTest

@testable import PromoTiles

/// An operator's file read as the app will read the served set: every problem named, nothing half taken.
final class PromoTileFileTests: XCTestCase {
    static let good = """
        {"version": 3, "tiles": [
          {"id": "wakeguide", "title": "Wake guide", "subtitle": "New", "text": "Read it before your first wave.",
           "image": "https://www.nextwaveapp.ch/img/guide.png", "link": "https://www.nextwaveapp.ch/guide",
           "isActive": true, "priority": 2, "validFrom": "2026-06-01T00:00:00+02:00", "validUntil": "2026-09-30T23:59:59Z",
           "targetOS": "ios,android", "chipType": "news"},
          {"id": "contest", "title": "Summer contest", "text": "Most waves wins.", "subtitle": null}
        ]}
        """

    func testAGoodFileIsServedAsTheAppDecodesIt() throws {
        let set = try PromoTileFile.read(Array(Self.good.utf8))
        XCTAssertEqual(set.version, 3)
        XCTAssertEqual(set.tiles.map(\.id), ["wakeguide", "contest"])
        XCTAssertEqual(set.tiles[0].validFrom, "2026-05-31T22:00:00Z", "UTC, as .iso8601 reads it")
        XCTAssertEqual(set.tiles[1].isActive, true)
        XCTAssertEqual(set.tiles[1].priority, 1)

        let body = try JSONBody.encode(set)
        let app = try AppPromoTiles.decode(body)
        XCTAssertEqual(app.version, 3)
        XCTAssertEqual(app.tiles.count, 2)
        XCTAssertEqual(app.tiles[0].image, "https://www.nextwaveapp.ch/img/guide.png")
        XCTAssertEqual(app.tiles[0].validFrom, Date(timeIntervalSince1970: 1_780_264_800))
        XCTAssertEqual(app.tiles[0].chipType, "news")
        XCTAssertNil(app.tiles[1].subtitle)
        XCTAssertFalse(String(decoding: body, as: UTF8.self).contains("null"), "absent members are left out")
        // What the store keeps is read back to the same set.
        XCTAssertEqual(try PromoTileFile.read(body), set)
        // Version defaults to 1; an empty list is a set too (no tiles shown).
        XCTAssertEqual(try PromoTileFile.read(Array(#"{"tiles": []}"#.utf8)), PromoTileSet(version: 1, tiles: []))
    }

    func testEveryProblemIsNamedAndNothingIsTaken() {
        let file = """
            {"version": 0, "extra": 1, "tiles": [
              {"id": "a", "title": "", "text": "x", "imageUrl": "https://x.ch/a.png", "image": "http://x.ch/a.png",
               "validFrom": "2026-06-01T00:00:00.000Z", "validUntil": "2026-06-01", "targetOS": "iso", "priority": 1.5,
               "isActive": "yes"},
              {"id": "a", "title": "B", "text": "y", "link": "https:///nohost", "validFrom": "2026-07-01T00:00:00Z",
               "validUntil": "2026-06-01T00:00:00Z"},
              {"title": "No id", "text": "z"},
              7
            ]}
            """
        XCTAssertThrowsError(try PromoTileFile.read(Array(file.utf8))) { error in
            let problems = (error as? PromoTileFile.Invalid)?.problems ?? []
            XCTAssertEqual(problems, [
                #"the file has a member "extra" the app does not read (only version and tiles)"#,
                "version must be a whole number of 1 or more",
                "tile 1 (a): the app does not read imageUrl (the app reads image)",
                "tile 1 (a): title is empty",
                "tile 1 (a): validFrom must be a date and time like 2026-06-01T00:00:00Z or 2026-06-01T00:00:00+02:00 (no fraction of a second)",
                "tile 1 (a): validUntil must be a date and time like 2026-06-01T00:00:00Z or 2026-06-01T00:00:00+02:00 (no fraction of a second)",
                "tile 1 (a): image must be an https URL (https://…)",
                "tile 1 (a): isActive must be true or false",
                "tile 1 (a): priority must be a whole number",
                "tile 1 (a): targetOS must be ios, android, ios,android or both",
                "tile 2 (a): validFrom must come before validUntil",
                "tile 2 (a): link must be an https URL (https://…)",
                "tile 2 (a): another tile has the id a",
                "tile 3: id is required",
                "tile 4 is not an object",
            ])
        }
        for (bad, problem) in [
            ("[]", #"the file is not a JSON object {"version": 1, "tiles": […]}"#),
            ("{}", "tiles must be a list of tiles (an empty list shows none)"),
            ("{\"tiles\": [", "not JSON at byte 11: unexpected end"),
        ] {
            XCTAssertThrowsError(try PromoTileFile.read(Array(bad.utf8)), bad) { error in
                XCTAssertEqual((error as? PromoTileFile.Invalid)?.problems.first?.hasPrefix(String(problem.prefix(20))), true, "\(error)")
            }
        }
        let many = #"{"tiles": ["# + (1...51).map { #"{"id": "t\#($0)", "title": "T", "text": "x"}"# }.joined(separator: ",") + "]}"
        XCTAssertThrowsError(try PromoTileFile.read(Array(many.utf8))) { error in
            XCTAssertEqual((error as? PromoTileFile.Invalid)?.problems, ["the file has 51 tiles: at most 50"])
        }
        XCTAssertThrowsError(try PromoTileFile.read(Array(repeating: 0x20, count: PromoTileFile.maximumBytes + 1)))
    }
}
