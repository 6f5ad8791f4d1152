import Parsing
import XCTest

@testable import Realtime

/// The hub's index: a change finds exactly the channels whose bindings can match it, whatever else is held.
final class SubscriptionIndexTests: XCTestCase {
    let published = [RealtimeTable(name: "wave_checkins", columns: [.init("wave_id", "text"), .init("departure_at", "timestamptz")])]

    private func binding(_ json: String) throws -> PostgresChangeBinding {
        try PostgresChangeBinding.read(try JSONScanner.parse(Array(json.utf8)), published: published).get()
    }

    private func change(_ kind: TableChange.Kind, wave: String) -> TableChange {
        let row: [TableChange.Value] = [.init("wave_id", wave), .init("departure_at", nil)]
        return TableChange(
            table: "wave_checkins", kind: kind, record: kind == .delete ? nil : row, oldRecord: kind == .insert ? nil : row,
            commitTimestamp: "2026-06-18T14:32:00.000Z", coalescing: wave)
    }

    func testAChangeFindsOnlyTheChannelsThatCanMatchIt() throws {
        var index = SubscriptionIndex<Int>()
        // 100,000 bindings on waves that never change, and on the wrong event: none is a candidate.
        for key in 0..<50_000 {
            index.insert(key, [try binding(#"{"event":"*","table":"wave_checkins","filter":"wave_id=eq.nothing-\#(key)"}"#),
                               try binding(#"{"event":"DELETE","table":"wave_checkins"}"#)])
        }
        index.insert(-1, [try binding(#"{"event":"*","table":"wave_checkins"}"#)])
        index.insert(-2, [try binding(#"{"event":"INSERT","table":"wave_checkins","filter":"wave_id=eq.w1"}"#)])
        index.insert(-3, [try binding(#"{"event":"UPDATE","table":"wave_checkins","filter":"wave_id=eq.w1"}"#)])
        XCTAssertEqual(index.candidates(change(.insert, wave: "w1")), [-1, -2])
        XCTAssertEqual(index.candidates(change(.update, wave: "w1")), [-1, -3])
        XCTAssertEqual(index.candidates(change(.insert, wave: "w2")), [-1])
        XCTAssertEqual(index.candidates(change(.delete, wave: "nothing-7")).count, 50_001, "the deletes' bindings and the one on nothing-7's wave")
        // Removed, a channel is found no more, and its places go.
        index.remove(-2, [try binding(#"{"event":"INSERT","table":"wave_checkins","filter":"wave_id=eq.w1"}"#)])
        XCTAssertEqual(index.candidates(change(.insert, wave: "w1")), [-1])
        let before = index.count
        index.remove(7, [try binding(#"{"event":"*","table":"wave_checkins","filter":"wave_id=eq.nothing-7"}"#)])
        XCTAssertEqual(index.count, before - 1)
    }

    func testAFilterIsKeptOnceAndBoundedInBytes() throws {
        let filtered = try binding(#"{"event":"*","table":"wave_checkins","filter":"wave_id=eq.w=1"}"#)
        XCTAssertEqual(filtered.filterText, "wave_id=eq.w=1", "the text sent, rebuilt from the one copy kept")
        XCTAssertEqual(filtered.filter, PostgresChangeFilter(column: "wave_id", value: "w=1"))
        let long = String(repeating: "x", count: RealtimeSettings.maxFilterBytes)
        XCTAssertEqual(
            PostgresChangeBinding.read(try JSONScanner.parse(Array(#"{"event":"*","table":"wave_checkins","filter":"wave_id=eq.\#(long)"}"#.utf8)), published: published),
            .failure(.filter("a filter longer than \(RealtimeSettings.maxFilterBytes) bytes")))
        // An id of 200 characters of four bytes each still fits.
        XCTAssertNoThrow(try binding(#"{"event":"*","table":"wave_checkins","filter":"wave_id=eq.\#(String(repeating: "🏄", count: 200))"}"#))
    }
}
