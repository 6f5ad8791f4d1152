@testable import Lakes
@testable import LakesFormat
import Parsing
import XCTest


final class WaterLevelCSVTests: XCTestCase {
    func testAnExportOfTheAppsTableIsRead() {
        let text = Array("\u{FEFF}id,lake_name,date,level_m,created_at\r\n1,Zürichsee,2026-11-24,405.91,\"2026-11-24 08:00:00+00\"\r\n2,\"Lac \"\"Léman\"\"\",2026-11-25,372.1,x\r\n\r\n".utf8)
        let (rows, problems) = WaterLevelCSV.read(text)
        XCTAssertEqual(problems, [])
        XCTAssertEqual(rows, [
            .init(lake: "Zürichsee", level: LakeLevel(day: CalendarDate("2026-11-24")!, metres: 405.91), line: 2),
            .init(lake: "Lac \"Léman\"", level: LakeLevel(day: CalendarDate("2026-11-25")!, metres: 372.1), line: 3),
        ])
    }

    func testEveryBadRowIsNamedByItsLine() {
        let text = Array("lake_name,date,level_m\nZürichsee,2026-11-24,405.91\n,2026-11-24,1\nBodensee,24.11.2026,395.2\nBodensee,2026-11-24,12\nBodensee,2026-11-24\n\"Thunersee\nrest,2026-11-24,557.7\n".utf8)
        let (rows, problems) = WaterLevelCSV.read(text)
        XCTAssertEqual(rows.map(\.line), [2])
        XCTAssertEqual(problems.map(\.line), [3, 4, 5, 6, 7])
        XCTAssertTrue(problems[0].reason.contains("lake_name"))
        XCTAssertTrue(problems[1].reason.contains("date"))
        XCTAssertTrue(problems[2].reason.contains("level_m"))
        XCTAssertTrue(problems[3].reason.contains("2 fields"))
        XCTAssertTrue(problems[4].reason.contains("not closed"))
        XCTAssertEqual(WaterLevelCSV.read(Array("lake,date\n".utf8)).problems.first?.reason.contains("lake_name"), true)
        XCTAssertEqual(WaterLevelCSV.read([]).problems.count, 1)
    }

    func testMeteoNewsLevelTexts() {
        XCTAssertEqual(LakeLevel.metres("405.98 m.ü.M."), 405.98)
        XCTAssertEqual(LakeLevel.metres(" 193,20 m ü. M."), 193.2)
        XCTAssertNil(LakeLevel.metres("—"))
        XCTAssertNil(LakeLevel.metres("12 m"), "not a lake's level")
        XCTAssertEqual(LakeNames.meteoNewsName("LAGO DI LUGANO", among: ["Luganersee", "Zürichsee"]), "Luganersee")
        XCTAssertEqual(LakeNames.meteoNewsName("zürichsee", among: ["Luganersee", "Zürichsee"]), "Zürichsee")
        XCTAssertNil(LakeNames.meteoNewsName("Lac Léman", among: ["Zürichsee"]), "only lakes MeteoNews lists")
    }
}
