import DatabaseTesting
import Foundation
@testable import NextWave
import Postgres
import Realtime
import Scheduling
import Synchronization
import XCTest

/// The check-ins' notices as their table declares them (Migrations/Scheduling/0039, 0040) through the real change feed: every
/// statement that writes check-ins — a batch, an upsert's update, a rider's cascade — announces one change per wave,
/// gathered into notices by bytes, with no rider in it; and no value a row may hold makes a notice fail its statement.
final class CheckinChangesTests: ServiceTestCase {
    private final class Heard: Sendable {
        let bodies = Mutex<[String]>([])
        var all: [String] { bodies.withLock { $0 } }
    }

    private func declaration() async throws -> RowNoticeDeclaration {
        try await RowNoticeDeclaration.read(table: CheckinChanges.table, on: pool)
    }

    private func listening() async throws -> (Heard, ChangeFeed) {
        let heard = Heard()
        let notices = ChangeNotices()
        notices.subscribe(try await declaration().topic) { body in heard.bodies.withLock { $0.append(body) } }
        let feed = ChangeFeed(url: database.childURL, notices: notices) { _ in }
        feed.start()
        try await Task.sleep(for: .milliseconds(700))  // the feed's LISTEN is in place
        return (heard, feed)
    }

    private func heardChanges(_ heard: Heard, atLeast wanted: Int) async throws -> [TableChange] {
        let deadline = Date().addingTimeInterval(10)
        var changes: [TableChange] = []
        let declaration = try await declaration()
        while Date() < deadline {
            changes = heard.all.compactMap { CheckinChanges.changes($0, declaration) }.flatMap { $0 }
            if changes.count >= wanted { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        return changes
    }

    func testEveryStatementAnnouncesItsWavesAndNoRider() async throws {
        let (heard, feed) = try await listening()
        defer { feed.stop() }
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
        let changes = try await heardChanges(heard, atLeast: 25)
        XCTAssertEqual(heard.all.count, 3, "12 small inserts in one notice, one update, 12 deletes in one")
        XCTAssertEqual(changes.filter { $0.kind == .insert }.count, 12)
        XCTAssertEqual(changes.filter { $0.kind == .delete }.count, 12, "the rider's cascade")
        let update = try XCTUnwrap(changes.first { $0.kind == .update })
        XCTAssertEqual(update.coalescing, "w1")
        XCTAssertEqual(update.record?.map(\.name), ["wave_id", "station_id", "lake_id", "departure_at"])
        XCTAssertNotEqual(update.record?.last?.value, update.oldRecord?.last?.value, "the departure moved")
        XCTAssertTrue(update.commitTimestamp.hasSuffix("Z"))
        for body in heard.all { XCTAssertFalse(body.contains(rider) || body.contains("Fede"), body) }
    }

    /// A rider's 100 check-ins with every published value at its bound in characters and each character as long as
    /// JSON writes one (a control character: six bytes), inserted, moved, archived and cascaded: each statement
    /// succeeds, each notice is under NOTIFY's 8,000 bytes, and every wave is announced.
    func testTheStrangestRowsNeverBreakTheirStatement() async throws {
        let (heard, feed) = try await listening()
        defer { feed.stop() }
        let rider = "6f1c2d3e-0000-4000-8000-0000000000bb"
        _ = try await pool.query("INSERT INTO nextwave_users (id) VALUES ($1::uuid)", [rider])
        _ = try await pool.query(
            """
            INSERT INTO nextwave_checkins (wave_id, user_id, display_name, departure_at, station_id, lake_id)
            SELECT lpad(i::text, 200, chr(1)), $1::uuid, repeat('"', 200), now() + interval '1 hour', repeat(chr(31), 199) || chr(92), repeat(chr(7), 100)
            FROM generate_series(1, 100) i
            """, [rider])
        var changes = try await heardChanges(heard, atLeast: 100)
        XCTAssertEqual(changes.count, 100)
        XCTAssertEqual(changes.first?.record?.first?.value?.unicodeScalars.count, 200, "the values are announced whole")
        // Moved to the past in one statement (each change carries the record and the old one), then archived.
        _ = try await pool.query("UPDATE nextwave_checkins SET departure_at = now() - interval '1 hour' WHERE user_id = $1::uuid", [rider])
        changes = try await heardChanges(heard, atLeast: 200)
        XCTAssertEqual(changes.filter { $0.kind == .update }.count, 100)
        let archive = try await CommunityArchive(pool: pool, pushing: false).run()
        XCTAssertEqual(archive.archived, 100)
        changes = try await heardChanges(heard, atLeast: 300)
        XCTAssertEqual(changes.filter { $0.kind == .delete }.count, 100, "the archive's deletes")
        // Another rider's, gone with their account.
        _ = try await pool.query("INSERT INTO nextwave_checkins (wave_id, user_id, departure_at, station_id, lake_id) "
            + "SELECT lpad(i::text, 200, chr(2)), $1::uuid, now() + interval '1 hour', repeat(chr(3), 200), repeat(chr(4), 100) FROM generate_series(1, 100) i",
            [rider])
        _ = try await pool.query("DELETE FROM nextwave_users WHERE id = $1::uuid", [rider])
        changes = try await heardChanges(heard, atLeast: 500)
        XCTAssertEqual(changes.filter { $0.kind == .delete }.count, 200, "the cascade's deletes")
        let prefix = try await declaration().topic.name.utf8.count + " database ".utf8.count
        for body in heard.all { XCTAssertLessThan(prefix + body.utf8.count, 8000) }
        XCTAssertGreaterThan(heard.all.map(\.utf8.count).max() ?? 0, 5000, "the notices were filled by bytes, not rows")
    }

    /// Should a later migration widen a column past what a notice holds, the row is left out of the notices — and the
    /// statement is still announced, with no rows: the notices are the one announcement every replica's counts hear.
    func testAStatementWhoseRowsAreLeftOutIsStillAnnounced() async throws {
        let (heard, feed) = try await listening()
        defer { feed.stop() }
        let rider = "6f1c2d3e-0000-4000-8000-0000000000cc"
        _ = try await pool.query("INSERT INTO nextwave_users (id) VALUES ($1::uuid)", [rider])
        _ = try await pool.query("ALTER TABLE nextwave_checkins DROP CONSTRAINT nextwave_checkins_station_id_check")
        _ = try await pool.query(
            "INSERT INTO nextwave_checkins (wave_id, user_id, departure_at, station_id) VALUES ('wide', $1::uuid, now() + interval '1 hour', repeat(chr(1), 2000))",
            [rider])
        let deadline = Date().addingTimeInterval(10)
        while heard.all.isEmpty, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        let declaration = try await declaration()
        XCTAssertEqual(heard.all.map { CheckinChanges.changes($0, declaration) }.map { $0?.count }, [0], "one notice, without the row: \(heard.all)")
    }

    /// The declaration is the one place the topic and the columns are written: Realtime lists them (with Supabase's type
    /// names) from it, and a notice lacking a declared column is not read.
    func testTheDeclarationNamesTopicColumnsAndTypes() async throws {
        let declaration = try await declaration()
        XCTAssertEqual(declaration.topic, ChangeTopic("nextwave-checkin-rows"))
        XCTAssertEqual(declaration.coalescing, "wave_id")
        let table = CheckinChanges.realtimeTable(declaration)
        XCTAssertEqual(table.name, "wave_checkins")
        XCTAssertEqual(table.columns.map { "\($0.name):\($0.type)" }, ["wave_id:text", "station_id:text", "lake_id:text", "departure_at:timestamptz"])
        XCTAssertNil(CheckinChanges.changes("not json", declaration))
        XCTAssertNil(CheckinChanges.changes(#"{"type":"TRUNCATE","commit_timestamp":"x","rows":[]}"#, declaration))
        XCTAssertNil(CheckinChanges.changes(#"{"type":"INSERT","commit_timestamp":"x","rows":[{"record":{"wave_id":1}}]}"#, declaration))
        XCTAssertNil(CheckinChanges.changes(#"{"type":"INSERT","commit_timestamp":"x","rows":[{"record":{"wave_id":"w"}}]}"#, declaration))
        XCTAssertEqual(CheckinChanges.changes(#"{"type":"INSERT","commit_timestamp":"x","rows":[]}"#, declaration)?.count, 0)
        let row = #"{"wave_id":"w","station_id":null,"lake_id":"l","departure_at":"2026-06-18T14:32:00+00:00"}"#
        let moved = try XCTUnwrap(CheckinChanges.changes(#"{"type":"UPDATE","commit_timestamp":"x","rows":[{"record":\#(row),"old_record":\#(row)}]}"#, declaration))
        XCTAssertEqual(moved.first?.coalescing, "w")
        XCTAssertEqual(moved.first?.record?.map(\.value), ["w", nil, "l", "2026-06-18T14:32:00+00:00"])
        // Declaring a column the table lacks fails the migration that says it.
        do {
            _ = try await pool.query("SELECT pier_announce_rows('nextwave_checkins', 'x', 'id', 'wave_id', ARRAY['wave_id', 'user_name'])")
            XCTFail("a missing column was declared")
        } catch {
            XCTAssertTrue("\(error)".contains("has no column user_name"), "\(error)")
        }
    }
}
