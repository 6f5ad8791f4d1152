import Foundation
import HTTPTesting
import XCTest

/// Settings as an operator gives them: secrets from files (Docker's `<NAME>_FILE` convention), never shown
/// anywhere; a mistyped `PIER_*` variable named in a warning; contradictory or unreadable secrets refused.
final class ConfigurationEndToEndTests: EndToEndTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        try super.setUpWithError()
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("pier-secrets-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: scratch)
        super.tearDown()
    }

    private func secretFile(_ name: String, _ value: String) throws -> String {
        let file = scratch.appendingPathComponent(name)
        try Data((value + "\n").utf8).write(to: file)
        return file.path
    }

    func testSecretsFromFilesWorkAndAreNeverLoggedOrShown() throws {
        let token = "file-token-\(UUID().uuidString)"
        let url = database.childURL
        let pier = try startPier([
            "DATABASE_URL": "", "DATABASE_URL_FILE": try secretFile("database-url", url),
            "PIER_REFRESH_TOKEN": "", "PIER_REFRESH_TOKEN_FILE": try secretFile("refresh-token", token),
            "PIER_FECTH": "off", "LOG_LEVEL": "debug",
            // The backup service's schedule, from the same `.env`: the Backups module declares it as its settings.
            "PIER_BACKUP_FULL_EVERY_D": "3", "PIER_BACKUP_DIFF_EVERY_H": "6",
        ])
        // The URL from the file reached the database, the token from the file guards the refresh.
        let refreshed = try RawClient.request(port: pier.port, "/api/ships/refresh", method: "POST", headers: [("Authorization", "Bearer \(token)")])
        XCTAssertEqual(refreshed.status, 200, refreshed.bodyText)
        let refused = try RawClient.request(
            port: pier.port, "/api/ships/refresh", method: "POST", headers: [("Authorization", "Bearer \(token.dropLast())")])
        XCTAssertEqual(refused.status, 401)
        let shown = [
            refused.bodyText, try RawClient.request(port: pier.port, "/health").bodyText,
            try RawClient.request(port: pier.port, "/metrics").bodyText, try RawClient.request(port: pier.port, "/openapi.json").bodyText,
        ]
        // The alerts read the schedule (deploy/monitoring/prometheus/rules/pier.yml).
        XCTAssertTrue(shown[2].contains(#"pier_backup_due_every_seconds{type="full"} 259200"#), shown[2])
        XCTAssertTrue(shown[2].contains(#"pier_backup_due_every_seconds{type="differential"} 21600"#), shown[2])
        XCTAssertEqual(pier.stop(), 0)
        let logs = pier.standardOutput()
        for text in shown + [logs] {
            XCTAssertFalse(text.contains(token), "the token is never shown")
            XCTAssertFalse(text.contains(url), "the database URL is never shown")
        }
        // The typo is named, once, as a warning; the real settings are not.
        let warnings = logs.split(separator: "\n").filter { $0.contains("unknown setting") }
        XCTAssertEqual(warnings.count, 1, logs)
        XCTAssertTrue(warnings.first?.contains("PIER_FECTH") ?? false, "\(warnings)")
        XCTAssertTrue(warnings.first?.contains(#""level":"warning""#) ?? false, "\(warnings)")
    }

    func testASecretGivenTwiceOrUnreadableIsRefusedWithoutShowingIt() throws {
        let token = "both-token-\(UUID().uuidString)"
        // `routes` reads every setting (the features' too) and exits.
        let twice = try ChildProcess.run(PierProcess.binary.path, ["routes"], environment: [
            "DATABASE_URL": database.childURL, "PIER_MIGRATIONS_DIR": PierProcess.migrationsDirectory,
            "PIER_REFRESH_TOKEN": token, "PIER_REFRESH_TOKEN_FILE": try secretFile("token", token),
        ])
        XCTAssertNotEqual(twice.status, 0)
        XCTAssertTrue(twice.output.contains("PIER_REFRESH_TOKEN and PIER_REFRESH_TOKEN_FILE are both set"), twice.output)
        XCTAssertFalse(twice.output.contains(token))

        let missing = scratch.appendingPathComponent("no-such-secret").path
        let unreadable = try ChildProcess.run(PierProcess.binary.path, ["migrate"], environment: [
            "DATABASE_URL": "", "DATABASE_URL_FILE": missing,
        ])
        XCTAssertNotEqual(unreadable.status, 0)
        XCTAssertTrue(unreadable.output.contains("DATABASE_URL_FILE=\(missing) cannot be read"), unreadable.output)
    }
}
