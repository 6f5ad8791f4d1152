import DatabaseTesting
import Foundation
import Postgres
import Scheduling
import Synchronization
import UpstreamHTTP
import XCTest

/// The runner against a real PostgreSQL: every run in `fetch_runs`, single-flight, timeouts, the board.
final class FetchRunnerTests: XCTestCase {
    var database: TestDatabase!
    var pool: PostgresPool!

    override func setUp() async throws {
        database = try TestDatabase.createMigrated()
        pool = try await database.migratedPool()
    }

    override func tearDown() {
        pool?.close()
        database?.drop()
    }

    private func job(timeout: Duration = .seconds(10), work: @escaping @Sendable () async throws -> FetchSummary) -> FetchJob {
        FetchJob(source: "test", schedule: .every(.seconds(3600)), retry: RetryPolicy(initial: .seconds(1), maximum: .seconds(2)), timeout: timeout, work: work)
    }

    private func outcomes() async throws -> [String] {
        try await pool.query("SELECT outcome FROM fetch_runs WHERE source = 'test' ORDER BY id").map { try $0.decode(String.self, "outcome") }
    }

    func testEveryOutcomeIsRecordedAndShownOnTheBoard() async throws {
        let board = SourceStatusBoard(sources: [("test", .seconds(3600))])
        let runner = FetchRunner(log: FetchRunLog(pool: pool), board: board)
        let summary = FetchSummary(itemCount: 3, scrapedAt: Date())
        _ = await runner.run(job { summary })
        XCTAssertEqual(board.statuses().first?.state, .ok)
        _ = await runner.run(job { throw FetchError.suspect("looks odd") })
        XCTAssertEqual(board.statuses().first?.state, .failing)
        XCTAssertEqual(board.statuses().first?.lastError, "suspect scrape: looks odd")
        _ = await runner.run(job { throw UpstreamError.status(500, url: "http://x") })
        let runs = try await outcomes()
        XCTAssertEqual(runs, ["ok", "suspect", "failed"])
        let counts = try await pool.query("SELECT item_count, error, finished_at IS NOT NULL AS done FROM fetch_runs ORDER BY id")
        XCTAssertEqual(try counts[0].decode(Int?.self, "item_count"), 3)
        XCTAssertEqual(try counts[2].decode(String?.self, "error"), "http://x answered HTTP 500")
        XCTAssertTrue(try counts.allSatisfy { try $0.decode(Bool.self, "done") })

        // A fresh board loaded from the table agrees (what another replica would see).
        let other = SourceStatusBoard(sources: [("test", .seconds(3600))])
        other.load(try await FetchRunLog(pool: pool).histories())
        XCTAssertEqual(other.statuses().first?.lastOutcome, .failed)
        XCTAssertNotNil(other.statuses().first?.lastSuccess)
    }

    /// The scheduler reloads the board from `fetch_runs` now and then; a read made just before a run's success
    /// was written must not roll that success back (seen as a `stale` source right after fresh data was served).
    /// Other processes hear of every run that stored data: successes, and failures that stored part of theirs.
    func testNewDataIsAnnouncedAfterASuccessAndAPartialFailureOnly() async throws {
        let runner = FetchRunner(log: FetchRunLog(pool: pool), board: SourceStatusBoard(sources: [("test", .seconds(3600))]))
        let announced = Mutex(0)
        runner.onSuccess { _ in announced.withLock { $0 += 1 } }
        _ = await runner.run(job { FetchSummary(itemCount: 1, scrapedAt: Date()) })
        _ = await runner.run(job { throw FetchError.partial("1 of 3 lakes failed", stored: 2, suspect: true) })
        _ = await runner.run(job { throw FetchError.partial("3 of 3 lakes failed", stored: 0, suspect: false) })
        _ = await runner.run(job { throw FetchError.suspect("looks odd") })
        XCTAssertEqual(announced.withLock { $0 }, 2)
        let recorded = try await outcomes()
        XCTAssertEqual(recorded, ["ok", "suspect", "failed", "suspect"])
    }

    func testAReloadReadBeforeASuccessDoesNotRollItBack() {
        let board = SourceStatusBoard(sources: [("test", .seconds(3600)), ("other", .seconds(3600))])
        let earlier = Date(timeIntervalSince1970: 1_795_400_000)
        board.record("test", outcome: .ok, error: nil, at: earlier.addingTimeInterval(600))
        board.record("other", outcome: .ok, error: nil, at: earlier)
        board.load([
            "test": SourceHistory(lastSuccess: earlier, lastOutcome: .ok),
            "other": SourceHistory(lastSuccess: earlier, lastOutcome: .failed, lastError: "another replica failed later"),
        ])
        XCTAssertEqual(board.history("test").lastSuccess, earlier.addingTimeInterval(600))
        XCTAssertEqual(board.history("test").lastOutcome, .ok)
        // Nothing newer recorded here: what the database says wins, a later failure elsewhere included.
        XCTAssertEqual(board.history("other").lastOutcome, .failed)
        XCTAssertEqual(board.history("other").lastError, "another replica failed later")
    }

    func testConcurrentCallersShareOneRun() async throws {
        let runner = FetchRunner(log: FetchRunLog(pool: pool), board: SourceStatusBoard(sources: [("test", .seconds(3600))]))
        let calls = Mutex(0)
        let slow = job {
            calls.withLock { $0 += 1 }
            try await Task.sleep(for: .milliseconds(300))
            return FetchSummary(itemCount: 1, scrapedAt: Date())
        }
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<10 { group.addTask { (try? await runner.run(slow).get()) != nil } }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        XCTAssertEqual(results, Array(repeating: true, count: 10))
        XCTAssertEqual(calls.withLock { $0 }, 1)
        let runs = try await outcomes()
        XCTAssertEqual(runs, ["ok"])
    }

    func testARunOverItsTimeoutIsCancelledAndRecordedAsFailed() async throws {
        let runner = FetchRunner(log: FetchRunLog(pool: pool), board: SourceStatusBoard(sources: [("test", .seconds(3600))]))
        let result = await runner.run(job(timeout: .milliseconds(200)) {
            try await Task.sleep(for: .seconds(30))
            return FetchSummary(itemCount: 1, scrapedAt: Date())
        })
        guard case .failure(.timedOut) = result else { return XCTFail("\(result)") }
        let runs = try await outcomes()
        XCTAssertEqual(runs, ["failed"])
    }

    func testRunsLeftOpenByADeadProcessAreClosed() async throws {
        _ = try await pool.execute("INSERT INTO fetch_runs (source, started_at, outcome) VALUES ('test', now() - interval '2 hours', 'running')")
        _ = try await pool.execute("INSERT INTO fetch_runs (source, started_at, outcome) VALUES ('test', now(), 'running')")
        let closed = try await FetchRunLog(pool: pool).closeAbandoned(olderThan: 600)
        XCTAssertEqual(closed, 1)
        let runs = try await outcomes()
        XCTAssertEqual(runs, ["failed", "running"])
    }
}
