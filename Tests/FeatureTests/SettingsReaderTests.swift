import Feature
import Limits
import Settings
import XCTest

final class SettingsReaderTests: XCTestCase {
    func testEveryNameAskedForIsRemembered() throws {
        let reader = SettingsReader(environment: ["PIER_A_S": "1.5", "PIER_B": "off"])
        XCTAssertEqual(try reader.seconds("PIER_A_S", default: .seconds(9)), .milliseconds(1500))
        XCTAssertEqual(try reader.flag("PIER_B", default: true), false)
        XCTAssertEqual(try reader.int("PIER_C", default: 7, in: 1...9), 7)
        XCTAssertEqual(reader.names, ["PIER_A_S", "PIER_B", "PIER_C"])
    }

    func testABudgetIsReadUnderItsPrefixWithItsDefaults() throws {
        let reader = SettingsReader(environment: ["PIER_X_BURST": "3"])
        let budget = try reader.budget("PIER_X", default: BudgetSettings(ratePerMinute: 30, burst: 10, clientShare: 0.25))
        XCTAssertEqual(budget, BudgetSettings(ratePerMinute: 30, burst: 3, clientShare: 0.25))
        XCTAssertTrue(reader.names.isSuperset(of: ["PIER_X_REQUESTS_PER_MINUTE", "PIER_X_BURST", "PIER_X_CLIENT_SHARE"]))
    }

    func testABadValueNamesTheVariableAndWhatWasExpected() {
        let reader = SettingsReader(environment: ["PIER_N": "lots"])
        XCTAssertThrowsError(try reader.int("PIER_N", default: 1, in: 1...5)) { error in
            XCTAssertEqual("\(error)", "PIER_N=lots is invalid: expected a whole number in 1...5")
        }
    }

    func testASecretComesFromItsFileAndIsNeverInAProblem() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("secret-\(UUID().uuidString)")
        try Data("s3cret\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        XCTAssertEqual(try SettingsReader(environment: ["KEY_FILE": file.path]).secret("KEY"), "s3cret")
        XCTAssertNil(try SettingsReader(environment: ["KEY": ""]).secret("KEY"))
        XCTAssertThrowsError(try SettingsReader(environment: ["KEY": "other", "KEY_FILE": file.path]).secret("KEY")) { error in
            XCTAssertEqual("\(error)", "KEY and KEY_FILE are both set: set one of them")
        }
    }
}
