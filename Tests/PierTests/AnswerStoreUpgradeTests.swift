import DatabaseTesting
import Foundation
import HTTPTesting
import Postgres
import UpstreamTesting
import XCTest

/// Migration 0018 moved the answers three on-demand routes kept in tables of their own (`lake_weather_forecasts`,
/// `stationboard_answers`, `nsw_departures`) into `upstream_answers`. An upgraded server must serve every answer the
/// previous release stored, byte for byte, without asking an upstream again.
final class AnswerStoreUpgradeTests: EndToEndTestCase {
    private static let paths = [
        "/v1/lake-weather?lat=46.5065&lon=6.6268", "/v1/stationboard?id=8503651&limit=30",
        "/v1/nsw/departures?stop=G203519&mode=bus", "/v1/nsw/departures?stop=X1",
    ]

    func testAnswersStoredByThePreviousSchemaAreServedAfterTheUpgradeWithoutAnUpstreamCall() async throws {
        let keys = FileManager.default.temporaryDirectory.appendingPathComponent("pier-upgrade-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: keys, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: keys) }
        try Data("ow-key".utf8).write(to: keys.appendingPathComponent("openweather"))
        try Data("nsw-key".utf8).write(to: keys.appendingPathComponent("nsw"))
        // Long freshness: the second server must find each answer fresh however slow this machine is.
        let environment = [
            "PIER_FETCH": "off", "PIER_OPENWEATHER_KEY_FILE": keys.appendingPathComponent("openweather").path,
            "PIER_NSW_API_KEY_FILE": keys.appendingPathComponent("nsw").path, "PIER_NSW_TTL_S": "3600",
            "PIER_STATIONBOARD_TTL_TODAY_S": "3600",
        ]

        // Today's server asks each upstream once; what it stored is what the previous release stored (same keys, same
        // bodies, in its own tables).
        let first = try startPier(environment)
        let answers = try Self.paths.map { try RawClient.request(port: first.port, $0) }
        XCTAssertEqual(answers.map(\.status), [200, 200, 200, 404], answers.map(\.bodyText).joined(separator: "\n"))
        XCTAssertEqual(first.stop(), 0)
        let calls = [upstream.requests(.openweather).count, upstream.requests(.transport).count, upstream.requests(.tfnsw).count]
        XCTAssertEqual(calls, [1, 1, 2])
        let kept = try await database.pool().query(
            "SELECT kind, key, status, body, fetched_at FROM upstream_answers WHERE kind IN ('lake-weather', 'stationboard', 'nsw') ORDER BY kind, key")
        XCTAssertEqual(try kept.map { try $0.decode(String.self, "kind") }, ["lake-weather", "nsw", "nsw", "stationboard"])

        // A database at schema 17, filled as that release filled it.
        let previous = try TestDatabase.create()
        defer { previous.drop() }
        let pool = try await previous.migratedPool(through: 17)
        for row in kept {
            let (key, body, fetchedAt) = (try row.decode(String.self, "key"), try row.decode(String.self, "body"), try row.decode(Date.self, "fetched_at"))
            switch try row.decode(String.self, "kind") {
            case "lake-weather":
                _ = try await pool.execute("INSERT INTO lake_weather_forecasts (cell_key, body, fetched_at) VALUES ($1, $2, $3)", [key, body, fetchedAt])
            case "stationboard":
                _ = try await pool.execute(
                    "INSERT INTO stationboard_answers (cache_key, station_id, service_date, body, fetched_at) VALUES ($1, '8503651', current_date, $2, $3)",
                    [key, body, fetchedAt])
            default:
                let unknown = try row.decode(Int.self, "status") == 404
                _ = try await pool.execute(
                    "INSERT INTO nsw_departures (request_key, departures, unknown, fetched_at) VALUES ($1, $2, $3, $4)",
                    [key, unknown ? "[]" : body, unknown, fetchedAt])
            }
        }
        pool.close()

        // The upgrade: migration 0018 at start-up, then the same requests.
        let upgraded = try startPier(environment, on: previous)
        let again = try Self.paths.map { try RawClient.request(port: upgraded.port, $0) }
        XCTAssertEqual(again.map(\.status), answers.map(\.status))
        XCTAssertEqual(again.map(\.bodyText), answers.map(\.bodyText), "the same bytes")
        XCTAssertEqual([upstream.requests(.openweather).count, upstream.requests(.transport).count, upstream.requests(.tfnsw).count], calls, "no upstream asked again")
        XCTAssertTrue(again.allSatisfy { $0.header("x-pier-stale") == nil }, "fresh, not stale")
        XCTAssertEqual(upgraded.stop(), 0)

        let after = previous.pool()
        defer { after.close() }
        let moved = try await after.query(
            "SELECT kind, key, status, body, fetched_at FROM upstream_answers WHERE kind IN ('lake-weather', 'stationboard', 'nsw') ORDER BY kind, key")
        XCTAssertEqual(try moved.map(Self.describe), try kept.map(Self.describe), "every row moved, nothing lost")
        let tables = try await after.query(
            "SELECT count(*) AS n FROM pg_tables WHERE tablename IN ('lake_weather_forecasts', 'stationboard_answers', 'nsw_departures')")
        XCTAssertEqual(try tables[0].decode(Int.self, "n"), 0, "the old tables are gone")
    }

    private static func describe(_ row: PostgresRow) throws -> String {
        "\(try row.decode(String.self, "kind")) \(try row.decode(String.self, "key")) \(try row.decode(Int.self, "status")) "
            + "\(try row.decode(Date.self, "fetched_at").timeIntervalSince1970) \(try row.decode(String.self, "body").count)"
    }
}
