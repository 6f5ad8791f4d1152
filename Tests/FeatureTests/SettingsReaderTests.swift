import Feature
import Limits
import Settings
import XCTest

final class SettingsReaderTests: XCTestCase {
    func testEveryNameAskedForIsRemembered() throws {
        let reader = SettingsReader(environment: ["PIER_A_S": "1.5", "PIER_B": "off"])
        XCTAssertEqual(try reader.seconds("PIER_A_S", default: .seconds(9), meaning: "a"), .milliseconds(1500))
        XCTAssertEqual(try reader.flag("PIER_B", default: true, meaning: "b"), false)
        XCTAssertEqual(try reader.int("PIER_C", default: 7, in: 1...9, meaning: "c"), 7)
        XCTAssertEqual(reader.names, ["PIER_A_S", "PIER_B", "PIER_C"])
    }

    func testEachSettingIsDeclaredOnceWithTheCodesDefaultNotTheEnvironmentsValue() throws {
        let reader = SettingsReader(environment: ["PIER_A_S": "1.5", "PIER_KEY": "s3cret"])
        _ = try reader.seconds("PIER_A_S", default: .milliseconds(2500), meaning: "how long")
        _ = try reader.seconds("PIER_A_S", default: .seconds(9), meaning: "read again by another feature")
        _ = try reader.number("PIER_SHARE", default: 0.25, in: 0.001...1, meaning: "a share")
        _ = try reader.megabytes("PIER_CACHE_MB", default: 64 << 20, meaning: "bytes")
        _ = try reader.secret("PIER_KEY", meaning: "a key")
        _ = reader.string("PIER_AT", shown: "03:00", meaning: "a time")
        XCTAssertEqual(reader.declarations.map(\.name), ["PIER_A_S", "PIER_SHARE", "PIER_CACHE_MB", "PIER_KEY", "PIER_AT"])
        XCTAssertEqual(reader.declarations.map(\.defaultValue), ["2.5", "0.25", "64", nil, "03:00"])
        XCTAssertEqual(reader.declarations[0].meaning, "how long")
        XCTAssertEqual(reader.declarations[1].takes, "number, 0.001 … 1")
        XCTAssertTrue(reader.declarations[3].takes.contains("PIER_KEY_FILE"))
        // A secret's value is never part of what is declared.
        XCTAssertFalse(reader.declarations.contains { "\($0)".contains("s3cret") })
    }

    func testABudgetIsReadUnderItsPrefixWithItsDefaults() throws {
        let reader = SettingsReader(environment: ["PIER_X_BURST": "3"])
        let budget = try reader.budget(
            "PIER_X", default: BudgetSettings(ratePerMinute: 30, burst: 10, clientShare: 0.25), rate: "X's calls a minute", of: "X calls")
        XCTAssertEqual(budget, BudgetSettings(ratePerMinute: 30, burst: 3, clientShare: 0.25))
        XCTAssertTrue(reader.names.isSuperset(of: ["PIER_X_REQUESTS_PER_MINUTE", "PIER_X_BURST", "PIER_X_CLIENT_SHARE"]))
        XCTAssertEqual(reader.declarations.map(\.meaning).first, "X's calls a minute")
        XCTAssertTrue(reader.declarations.allSatisfy { !$0.meaning.isEmpty })
    }

    func testABadValueNamesTheVariableAndWhatWasExpected() {
        let reader = SettingsReader(environment: ["PIER_N": "lots"])
        XCTAssertThrowsError(try reader.int("PIER_N", default: 1, in: 1...5, meaning: "n")) { error in
            XCTAssertEqual("\(error)", "PIER_N=lots is invalid: expected a whole number in 1...5")
        }
    }

    func testASecretComesFromItsFileAndIsNeverInAProblem() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("secret-\(UUID().uuidString)")
        try Data("s3cret\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        XCTAssertEqual(try SettingsReader(environment: ["KEY_FILE": file.path]).secret("KEY", meaning: "k"), "s3cret")
        XCTAssertNil(try SettingsReader(environment: ["KEY": ""]).secret("KEY", meaning: "k"))
        XCTAssertThrowsError(try SettingsReader(environment: ["KEY": "other", "KEY_FILE": file.path]).secret("KEY", meaning: "k")) { error in
            XCTAssertEqual("\(error)", "KEY and KEY_FILE are both set: set one of them")
        }
    }
}
