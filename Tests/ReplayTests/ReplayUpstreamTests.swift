import Foundation
import Parsing
import Replay
import ReplayMatching
import Ships
import UpstreamHTTP
import Weather
import XCTest

/// The replay server answering through Pier's real upstream client, from capture folders written to disk.
final class ReplayUpstreamTests: XCTestCase {
    private var folder: URL!
    private let client = UpstreamClient(configuration: .init(timeout: .seconds(5)))

    override func setUpWithError() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("pier-replay-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: folder)
    }

    /// Writes one exchange as `pier fetch --save` would.
    private func record(_ index: Int, url: String, status: Int? = 200, contentType: String = "text/html", body: String, receivedAt: Date = Date(), error: String? = nil) throws {
        let name = String(format: "%03d", index)
        var meta: [String: Any] = [
            "url": url, "headers": ["Content-Type": contentType], "receivedAt": Timestamp.iso8601(receivedAt),
        ]
        if let status {
            meta["status"] = status
            meta["body"] = "\(name).body"
            try Data(body.utf8).write(to: folder.appendingPathComponent("\(name).body"))
        }
        if let error { meta["error"] = error }
        try JSONSerialization.data(withJSONObject: meta).write(to: folder.appendingPathComponent("\(name).json"))
    }

    /// ZSG's `timestamp` for a day counted from today in Zurich (as the fetcher counts it).
    private func noon(daysFromToday offset: Int, now: Date = Date()) -> Int64 {
        let today = CalendarDate(now, in: TimeZone(identifier: "Europe/Zurich")!)
        return Int64(today.adding(days: offset).noonUTC.timeIntervalSince1970) * 1000
    }

    private func replay(moveToNow: Bool = false) throws -> ReplayUpstream {
        try ReplayUpstream(recorded: try ReplayUpstream.read(folder), moveToNow: moveToNow, matchers: [ZSGReplay(), FMIReplay()])
    }

    func testARecordingFromLastWeekServesThisWeekDayByDay() async throws {
        for day in 0..<7 {
            try record(day + 1, url: "https://zsg.example/schiffeinsatz?timestamp=\(noon(daysFromToday: day - 7))", body: "recorded day \(day)")
        }
        let upstream = try replay()
        defer { upstream.stop() }
        let base = upstream.url(for: "https://zsg.example/schiffeinsatz")
        XCTAssertTrue(base.hasPrefix("http://127.0.0.1:\(upstream.port)/zsg.example/schiffeinsatz"), base)
        for day in [0, 3, 6] {
            let page = try await client.get(base + "?timestamp=\(noon(daysFromToday: day))")
            XCTAssertEqual(String(decoding: page.body, as: UTF8.self), "recorded day \(day)")
            XCTAssertEqual(page.contentType, "text/html")
        }
        let exact = try await client.get(base + "?timestamp=\(noon(daysFromToday: -5))")
        XCTAssertEqual(String(decoding: exact.body, as: UTF8.self), "recorded day 2", "an exact request gets its own answer")
    }

    /// The demo's week overlapping the recorded one (recorded from three days ago): a day recorded exactly is
    /// still answered by its distance from today, so every day of the week has its own, different page.
    func testInTheDemoADayRecordedExactlyIsStillAnsweredByItsDistanceFromToday() async throws {
        for day in 0..<7 {
            try record(day + 1, url: "https://zsg.example/schiffeinsatz?timestamp=\(noon(daysFromToday: day - 3))", body: "recorded day \(day)")
        }
        let upstream = try replay(moveToNow: true)
        defer { upstream.stop() }
        let base = upstream.url(for: "https://zsg.example/schiffeinsatz")
        for day in 0..<7 {
            let page = try await client.get(base + "?timestamp=\(noon(daysFromToday: day))")
            XCTAssertEqual(String(decoding: page.body, as: UTF8.self), "recorded day \(day)", "day \(day) of this week")
        }
    }

    /// Zurich's date decides what today is: at 23:30 UTC it is already tomorrow there (and the fetcher asks for it).
    func testTodayIsZurichsDate() throws {
        let lateEvening = try XCTUnwrap(ISO8601DateFormatter().date(from: "2026-11-26T23:30:00Z"))
        let exchange = try JSONDecoder().decode(
            UpstreamCapture.Exchange.self, from: Data(#"{"url": "https://zsg.example/p", "status": 200, "headers": {}, "receivedAt": "2026-11-16T02:00:00Z"}"#.utf8))
        let entries = (0..<7).map { day in
            ReplayEntry(
                exchange: exchange,
                body: Array("recorded day \(day)".utf8), query: ["timestamp": "\(noon(daysFromToday: day - 10, now: lateEvening))"],
                receivedAt: lateEvening)
        }
        let today = ZSGReplay().pick(["timestamp": "\(noon(daysFromToday: 0, now: lateEvening))"], from: entries, now: lateEvening)
        XCTAssertEqual(today.map { String(decoding: $0.body, as: UTF8.self) }, "recorded day 0")
        XCTAssertEqual(noon(daysFromToday: 0, now: lateEvening), 1_795_780_800_000, "2026-11-27, Zurich's date at 23:30 UTC")
    }

    func testFMIAnswersMatchByStoredQueryAndMoveToNow() async throws {
        let weekAgo = Date().addingTimeInterval(-7 * 86_400)
        let stamp = Timestamp.iso8601(Date(timeIntervalSince1970: (weekAgo.timeIntervalSince1970 / 3600).rounded(.down) * 3600))
        try record(1, url: "https://fmi.example/wfs?storedquery_id=obs&bbox=1", contentType: "text/xml", body: "<t>\(stamp)</t>", receivedAt: weekAgo)
        try record(2, url: "https://fmi.example/wfs?storedquery_id=forecast&latlon=60.17,24.94", contentType: "text/xml; charset=UTF-8",
                   body: "<forecast at='\(stamp)'/>", receivedAt: weekAgo)
        let moved = try replay(moveToNow: true)
        defer { moved.stop() }
        let base = moved.url(for: "https://fmi.example/wfs")
        let forecast = try await client.get(base + "?storedquery_id=forecast&latlon=65.0000,25.4600")
        let text = String(decoding: forecast.body, as: UTF8.self)
        let expected = Timestamp.iso8601(Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 3600).rounded(.down) * 3600))
        XCTAssertEqual(text, "<forecast at='\(expected)'/>", "any point gets the recorded forecast, its times moved by whole hours")
        let exact = try replay()
        defer { exact.stop() }
        let observations = try await client.get(exact.url(for: "https://fmi.example/wfs") + "?storedquery_id=obs&bbox=2")
        XCTAssertEqual(String(decoding: observations.body, as: UTF8.self), "<t>\(stamp)</t>", "replay without the demo's shift: bytes as recorded")
    }

    func testFailuresReplayAsFailures() async throws {
        try record(1, url: "https://zsg.example/broken", status: 500, body: "<html>Error 500</html>")
        try record(2, url: "https://zsg.example/slow", status: nil, body: "", error: "timed out")
        let upstream = try replay()
        defer { upstream.stop() }
        do {
            _ = try await client.get(upstream.url(for: "https://zsg.example/broken"))
            XCTFail("500 recorded, 500 replayed")
        } catch let error {
            guard case .status(500, _) = error else { return XCTFail("\(error)") }
        }
        do {
            _ = try await client.get(upstream.url(for: "https://zsg.example/slow"))
            XCTFail("a recorded transport error is a failure")
        } catch let error {
            guard case .status(502, _) = error else { return XCTFail("\(error)") }
        }
        do {
            _ = try await client.get(upstream.url(for: "https://other.example/page"))
            XCTFail("nothing recorded for another upstream")
        } catch let error {
            guard case .status(404, _) = error else { return XCTFail("\(error)") }
        }
        XCTAssertThrowsError(try ReplayUpstream.read(FileManager.default.temporaryDirectory.appendingPathComponent("pier-none-\(UUID().uuidString)")))
    }
}
