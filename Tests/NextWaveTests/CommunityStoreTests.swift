import DatabaseTesting
import Foundation
@testable import NextWave
import Postgres
import PostgRESTFormat
import XCTest

/// The counts held in memory, the archive and the badges, against a real PostgreSQL.
final class CommunityStoreTests: ServiceTestCase {
    private var users: [String] = []

    override func setUp() async throws {
        try await super.setUp()
        let auth = AuthStore(pool: pool, secret: "super-secret-jwt-token-with-at-least-32-characters-long")
        users = []
        for _ in 0..<3 { users.append(try await auth.signUp().user.id) }
    }

    private func checkIn(_ user: String, _ wave: String, name: String?, in seconds: Int, station: String? = "S_1", created: Int = 0) async throws {
        _ = try await pool.execute(
            """
            INSERT INTO nextwave_checkins (wave_id, user_id, display_name, departure_at, created_at, station_id, lake_id)
            VALUES ($1, $2::uuid, $3, now() + make_interval(secs => $4), now() + make_interval(secs => $5), $6, 'Zürichsee')
            """, [wave, user, name, seconds, created, station])
    }

    func testCountsFromMemoryAreTheBytesPostgreSQLsJsonAggWrites() async throws {
        try await checkIn(users[0], "w\"1", name: "Ä \"quoted\"\n", in: 3600)
        try await checkIn(users[1], "w\"1", name: nil, in: 3600, created: 1)
        try await checkIn(users[2], "w2", name: nil, in: 3600)
        let counts = CheckinCounts(pool: pool)
        XCTAssertNil(counts.answer(.init(["w\"1", "w2"])), "nothing held yet")
        let loaded = try await counts.load(.init(["w2", "nobody", "w\"1"]))
        // What PostgREST wrote for the app's function: json_agg of its rows.
        let expected = try await pool.query(
            """
            SELECT json_agg(r)::text AS body FROM (
                SELECT wave_id, count(*) AS count,
                       coalesce(array_agg(display_name ORDER BY created_at) FILTER (WHERE display_name IS NOT NULL), '{}') AS names
                FROM nextwave_checkins WHERE wave_id = ANY('{"w\\"1",w2}') GROUP BY wave_id ORDER BY wave_id) r
            """)[0].decode(String.self, "body")
        XCTAssertEqual(loaded, expected)
        XCTAssertEqual(counts.answer(.init(["w\"1", "w2", "nobody"])), Array(expected.utf8), "answered from memory, the same bytes")
        XCTAssertEqual(counts.answer(.init(["nobody", "w2", "w\"1", "w2"])), Array(expected.utf8), "the same waves in another order, repeated: the same answer")
        XCTAssertEqual(counts.held.answers, 1, "one whole answer for what the asks meant")
        XCTAssertTrue(loaded.contains(#""names":[]"#), "a wave of anonymous riders has names [], never null")
        counts.invalidate()
        XCTAssertNil(counts.answer(.init(["w2"])))
        XCTAssertEqual(counts.held.answers + counts.held.waves + counts.held.answerBytes + counts.held.waveBytes, 0, "a check-in anywhere forgets everything")
    }

    func testCountsHeldStayWithinTheirBytes() async throws {
        try await checkIn(users[0], "w1", name: String(repeating: "n", count: 40), in: 3600)
        let counts = CheckinCounts(pool: pool, bounds: .init(answers: 1000, answerBytes: 4096, waves: 1000, waveBytes: 4096))
        // A stranger inventing waves: each ask a new set, long ids.
        for n in 0..<200 {
            let waves = CheckinCounts.Waves(["w1", String(repeating: "x", count: 150) + "\(n)"])
            _ = try await counts.load(waves)
            _ = counts.answer(waves)
            XCTAssertLessThanOrEqual(counts.held.waveBytes, 4096)
            XCTAssertLessThanOrEqual(counts.held.answerBytes, 4096)
        }
        XCTAssertGreaterThan(counts.held.answers, 0, "answers are still kept")
        let answer = try await counts.load(.init(["w1"]))
        XCTAssertTrue(answer.contains(#""count":1"#))
    }

    func testACountEndsWithItsDeparture() async throws {
        try await checkIn(users[0], "soon", name: "A", in: 1)
        let counts = CheckinCounts(pool: pool)
        let loaded = try await counts.load(.init(["soon"]))
        XCTAssertTrue(loaded.contains(#""count":1"#))
        XCTAssertNotNil(counts.answer(.init(["soon"])))
        XCTAssertNil(counts.answer(.init(["soon"]), now: Date().timeIntervalSince1970 + 5), "past its departure, memory does not answer")
    }

    func testTheArchiveCountsPeersAndTheFirstAndRunsOnce() async throws {
        try await checkIn(users[0], "gone", name: "A", in: -60, created: -600)
        try await checkIn(users[1], "gone", name: nil, in: -60, created: -300)
        try await checkIn(users[2], "gone", name: nil, in: -60, station: nil)  // legacy: deleted, not archived
        try await checkIn(users[2], "later", name: nil, in: 3600)
        let archive = CommunityArchive(pool: pool, pushing: false)
        let summary = try await archive.run()
        XCTAssertEqual(summary.archived, 2)
        XCTAssertEqual(summary.deleted, 3)
        XCTAssertEqual(summary.riders, 2)
        let rows = try await pool.query("SELECT user_id::text AS u, peer_count, was_first_checkin FROM nextwave_history ORDER BY peer_count, was_first_checkin DESC")
        XCTAssertEqual(try rows.map { try $0.decode(Int.self, "peer_count") }, [2, 2])
        let first = try rows.first { try $0.decode(Bool.self, "was_first_checkin") }?.decode(String.self, "u")
        XCTAssertEqual(first, users[0])
        // Which time-of-day and season badges a ride earns depends on the clock; First Wave does not.
        let badges = try await pool.query("SELECT user_id::text AS u, badge_id FROM nextwave_badges")
        XCTAssertEqual(summary.badges, badges.count)
        XCTAssertEqual(Set(try badges.filter { try $0.decode(String.self, "badge_id") == "first_wave" }.map { try $0.decode(String.self, "u") }), [users[0], users[1]])
        let again = try await archive.run()
        XCTAssertEqual(again, CommunityArchive.Summary(), "run again, nothing more")
        let left = try await pool.query("SELECT count(*)::int AS n FROM nextwave_checkins")[0].decode(Int.self, "n")
        XCTAssertEqual(left, 1, "the future check-in stays")
    }

    func testABadgePushIsWordedAsTheAppsBackendWordedIt() {
        let one = Badge.catalogue.filter { $0.id == "first_wave" }
        XCTAssertEqual(
            CommunityArchive.payload(one),
            #"{"aps":{"alert":{"title":"New badge unlocked! 🏅","body":"You earned the “First Wave” badge — tap to see it."},"sound":"default"},"deepLink":"badges"}"#)
        let four = Badge.catalogue.filter { ["double", "early_bird", "first_wave", "lone_wolf"].contains($0.id) }.sorted { $0.title < $1.title }
        XCTAssertTrue(CommunityArchive.payload(four).contains(#""body":"You earned 4 new badges: Double, Early Bird, First Wave""#))
        XCTAssertEqual(Badge.catalogue.count, 34)
        XCTAssertEqual(Set(Badge.catalogue.map(\.id)).count, 34)
    }
}
