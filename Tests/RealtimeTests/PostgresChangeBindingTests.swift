import Parsing
import XCTest

@testable import Realtime

final class PostgresChangeBindingTests: XCTestCase {
    let published = [RealtimeTable(name: "wave_checkins", columns: [.init("wave_id", "text"), .init("departure_at", "timestamptz")])]

    private func read(_ json: String) throws -> Result<PostgresChangeBinding, RealtimeRefusal> {
        PostgresChangeBinding.read(try JSONScanner.parse(Array(json.utf8)), published: published)
    }

    func testABindingIsEchoedAsSentWithAStableId() throws {
        let binding = try read(#"{"event":"*","schema":"public","table":"wave_checkins"}"#).get()
        let again = try read(#"{"table":"wave_checkins","schema":"public","event":"*"}"#).get()
        XCTAssertEqual(binding.id, again.id, "the same binding, the same id (any replica, any reconnect)")
        XCTAssertTrue((1...Int(Int32.max)).contains(binding.id), "a positive 32-bit id (supabase-kt decodes an Int)")
        XCTAssertEqual(binding.json, #"{"id":\#(binding.id),"event":"*","schema":"public","table":"wave_checkins"}"#)
        let filtered = try read(#"{"event":"INSERT","schema":"public","table":"wave_checkins","filter":"wave_id=eq.w1"}"#).get()
        XCTAssertNotEqual(filtered.id, binding.id)
        XCTAssertTrue(filtered.json.hasSuffix(#","filter":"wave_id=eq.w1"}"#), filtered.json)
    }

    func testWhatIsNotPublishedOrNotServedIsRefused() throws {
        XCTAssertEqual(try read(#"{"event":"*","schema":"public","table":"user_profiles"}"#), .failure(.table(schema: "public", table: "user_profiles")))
        XCTAssertEqual(try read(#"{"event":"*","schema":"auth","table":"wave_checkins"}"#), .failure(.table(schema: "auth", table: "wave_checkins")))
        XCTAssertEqual(try read(#"{"event":"TRUNCATE","schema":"public","table":"wave_checkins"}"#), .failure(.binding("event must be *, INSERT, UPDATE or DELETE")))
        XCTAssertEqual(
            try read(#"{"event":"*","schema":"public","table":"wave_checkins","filter":"wave_id=neq.w1"}"#), .failure(.filter("only the eq operator is served")))
        XCTAssertEqual(
            try read(#"{"event":"*","schema":"public","table":"wave_checkins","filter":"user_id=eq.x"}"#),
            .failure(.filter("wave_checkins publishes no column user_id")))
    }

    func testABindingMatchesItsKindAndFilter() throws {
        let insert = TableChange(
            table: "wave_checkins", kind: .insert, record: [.init("wave_id", "w1"), .init("departure_at", nil)], oldRecord: nil,
            commitTimestamp: "2026-06-18T14:32:00.000Z", coalescing: "w1")
        var delete = insert
        (delete.kind, delete.record, delete.oldRecord) = (.delete, nil, insert.record)
        XCTAssertTrue(try read(#"{"event":"*","table":"wave_checkins"}"#).get().matches(insert))
        XCTAssertFalse(try read(#"{"event":"UPDATE","table":"wave_checkins"}"#).get().matches(insert))
        XCTAssertTrue(try read(#"{"event":"INSERT","table":"wave_checkins","filter":"wave_id=eq.w1"}"#).get().matches(insert))
        XCTAssertFalse(try read(#"{"event":"INSERT","table":"wave_checkins","filter":"wave_id=eq.w2"}"#).get().matches(insert))
        XCTAssertTrue(try read(#"{"event":"DELETE","table":"wave_checkins","filter":"wave_id=eq.w1"}"#).get().matches(delete), "a delete's old record")
    }

    func testAChangesDataIsSupabasesShape() throws {
        let update = TableChange(
            table: "wave_checkins", kind: .update, record: [.init("wave_id", "w1"), .init("departure_at", "2026-06-18T14:32:00+00:00")],
            oldRecord: [.init("wave_id", "w1"), .init("departure_at", nil)], commitTimestamp: "2026-06-18T14:32:00.123Z", coalescing: nil)
        let data = update.data(columns: published[0].columns)
        XCTAssertEqual(
            data,
            #"{"schema":"public","table":"wave_checkins","commit_timestamp":"2026-06-18T14:32:00.123Z","type":"UPDATE","#
                + #""record":{"wave_id":"w1","departure_at":"2026-06-18T14:32:00+00:00"},"old_record":{"wave_id":"w1","departure_at":null},"#
                + #""columns":[{"name":"wave_id","type":"text"},{"name":"departure_at","type":"timestamptz"}],"errors":null}"#)
        var insert = update
        (insert.kind, insert.oldRecord) = (.insert, nil)
        XCTAssertFalse(insert.data(columns: []).contains("old_record"), "an insert has no old record (walrus)")
    }
}
