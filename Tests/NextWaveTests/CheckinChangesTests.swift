import DatabaseTesting
import Foundation
@testable import NextWave
import Postgres
import Realtime
import Scheduling
import Synchronization
import XCTest

/// The check-ins' trigger (Migrations/0033) through the real change feed: every statement that writes check-ins — a
/// batch, an upsert's update, a rider's cascade — announces one change per wave, ten to a notice, with no rider in it.
final class CheckinChangesTests: ServiceTestCase {
    private final class Heard: Sendable {
        let bodies = Mutex<[String]>([])
        var all: [String] { bodies.withLock { $0 } }
    }

    func testEveryStatementAnnouncesItsWavesAndNoRider() async throws {
        let heard = Heard()
        let notices = ChangeNotices()
        notices.subscribe(CheckinChanges.topic) { body in heard.bodies.withLock { $0.append(body) } }
        let feed = ChangeFeed(url: database.childURL, notices: notices) { _ in }
        feed.start()
        defer { feed.stop() }
        try await Task.sleep(for: .milliseconds(700))  // the feed's LISTEN is in place
        let rider = "6f1c2d3e-0000-4000-8000-0000000000aa"
        _ = try await pool.query("INSERT INTO nextwave_users (id) VALUES ($1::uuid)", [rider])
        _ = try await pool.query(
            """
            INSERT INTO nextwave_checkins (wave_id, user_id, display_name, departure_at, station_id, lake_id)
            SELECT 'w' || i, $1::uuid, 'Fede', now() + interval '1 hour', 'Thalwil (See)_8503674', 'Zürichsee' FROM generate_series(1, 12) i
            """, [rider])
        _ = try await pool.query(
            "INSERT INTO nextwave_checkins (wave_id, user_id, departure_at) VALUES ('w1', $1::uuid, now() + interval '2 hours') "
                + "ON CONFLICT (wave_id, user_id) DO UPDATE SET departure_at = EXCLUDED.departure_at", [rider])
        _ = try await pool.query("DELETE FROM nextwave_users WHERE id = $1::uuid", [rider])
        let deadline = Date().addingTimeInterval(10)
        var changes: [TableChange] = []
        while Date() < deadline {
            changes = heard.all.compactMap(CheckinChanges.read).flatMap { $0 }
            if changes.count >= 25 { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        XCTAssertEqual(heard.all.count, 5, "12 inserts in two notices, one update, 12 deletes in two")
        XCTAssertEqual(changes.filter { $0.kind == .insert }.count, 12)
        XCTAssertEqual(changes.filter { $0.kind == .delete }.count, 12, "the rider's cascade")
        let update = try XCTUnwrap(changes.first { $0.kind == .update })
        XCTAssertEqual(update.coalescing, "w1")
        XCTAssertEqual(update.record?.map(\.name), ["wave_id", "station_id", "lake_id", "departure_at"])
        XCTAssertNotEqual(update.record?.last?.value, update.oldRecord?.last?.value, "the departure moved")
        XCTAssertTrue(update.commitTimestamp.hasSuffix("Z"))
        for body in heard.all { XCTAssertFalse(body.contains(rider) || body.contains("Fede"), body) }
    }

    func testANoticeNotOfTheTriggersShapeIsNotRead() {
        XCTAssertNil(CheckinChanges.read("not json"))
        XCTAssertNil(CheckinChanges.read(#"{"type":"TRUNCATE","commit_timestamp":"x","rows":[]}"#))
        XCTAssertNil(CheckinChanges.read(#"{"type":"INSERT","commit_timestamp":"x","rows":[{"record":{"wave_id":1}}]}"#))
        XCTAssertEqual(CheckinChanges.read(#"{"type":"INSERT","commit_timestamp":"x","rows":[]}"#)?.count, 0)
    }
}
