import Synchronization
import XCTest

@testable import Realtime

final class ChangeCoalescerTests: XCTestCase {
    private final class Delivered: Sendable {
        let changes = Mutex<[TableChange]>([])
        var all: [TableChange] { changes.withLock { $0 } }
    }

    private func change(_ wave: String, _ kind: TableChange.Kind = .insert, at stamp: String) -> TableChange {
        TableChange(table: "wave_checkins", kind: kind, record: [.init("wave_id", wave)], oldRecord: nil, commitTimestamp: stamp, coalescing: wave)
    }

    func testTheFirstGoesAtOnceTheLastAtTheWindowsEndNoneBetween() throws {
        let delivered = Delivered()
        let coalescer = ChangeCoalescer(window: .milliseconds(300)) { change in delivered.changes.withLock { $0.append(change) } }
        for index in 0..<10 { coalescer.offer(change("w1", at: "\(index)")) }
        coalescer.offer(change("w1", .delete, at: "d"))
        coalescer.offer(change("w2", at: "x"))
        XCTAssertEqual(delivered.all.map(\.commitTimestamp), ["0", "d", "x"], "one of each wave and kind at once")
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertEqual(delivered.all.map(\.commitTimestamp), ["0", "d", "x", "9"], "the burst's last change, at the window's end")
        Thread.sleep(forTimeInterval: 0.4)
        XCTAssertEqual(coalescer.openWindows, 0, "quiet keys are forgotten")
        coalescer.offer(change("w1", at: "later"))
        XCTAssertEqual(delivered.all.last?.commitTimestamp, "later", "after a quiet window, at once again")
    }

    func testAChangeWithoutACoalescingValueIsNeverHeld() {
        let delivered = Delivered()
        let coalescer = ChangeCoalescer(window: .seconds(60)) { change in delivered.changes.withLock { $0.append(change) } }
        var plain = change("w1", at: "1")
        plain.coalescing = nil
        coalescer.offer(plain)
        coalescer.offer(plain)
        XCTAssertEqual(delivered.all.count, 2)
    }
}
