import Basics
import DatabaseTesting
import Foundation
@testable import NextWave
import Postgres
import PostgRESTFormat
import Push
import XCTest

/// What one rider or a stranger can make the community hold or count, against a real PostgreSQL: the leaderboard and
/// the statistics count a plausible number of rides, verified sessions and check-ins are bounded, the leaderboard is
/// served from memory as the SQL it replaces answered, names are cut rather than refused, idle users go.
final class CommunityBoundsTests: ServiceTestCase {
    private var users: [String] = []
    private var auth: AuthStore!

    override func setUp() async throws {
        try await super.setUp()
        auth = AuthStore(pool: pool, secret: "super-secret-jwt-token-with-at-least-32-characters-long")
        users = []
        for _ in 0..<4 { users.append(try await auth.signUp().user.id) }
    }

    /// `count` archived rides of `user` on one Swiss day, at `station`.
    private func ride(_ user: String, _ count: Int, daysAgo: Int = 3, station: String = "S_1") async throws {
        _ = try await pool.execute(
            """
            INSERT INTO nextwave_history (user_id, wave_id, station_id, lake_id, departure_at)
            SELECT $1::uuid, 'w' || $3 || '-' || $4::int || '-' || n, $3, 'Zürichsee',
                   date_trunc('day', now() AT TIME ZONE 'Europe/Zurich') AT TIME ZONE 'Europe/Zurich' - make_interval(days => $4::int) + make_interval(mins => 400 + n)
            FROM generate_series(1, $2::int) n
            """, [user, count, station, daysAgo])
    }

    private func store(rides: RideBounds = RideBounds(), checkinsPerUser: Int = 100) -> CommunityStore {
        CommunityStore(pool: pool, limits: .init(checkinsPerUser: checkinsPerUser, checkinHorizonDays: 8, apnsEnvironment: .production, rides: rides))
    }

    private func verified(_ key: String, startedDaysAgo days: Int) throws -> PostgRESTRows {
        let start = ISO8601DateFormatter().string(from: Date().addingTimeInterval(Double(-days * 86_400)))
        return try PostgRESTRows(json: Array(#"{"user_id":"\#(users[0])","session_key":"\#(key)","start_at":"\#(start)","station_id":"S_2","lake_id":"Zürichsee"}"#.utf8), columns: nil)
    }

    func testTheLeaderboardFromMemoryIsWhatTheSQLItReplacesAnswered() async throws {
        var rides = RideBounds()
        rides.ridesPerDay = 5
        try await ride(users[0], 3)
        try await ride(users[1], 40)  // 40 in a day: counted as 5
        try await ride(users[1], 2, daysAgo: 4, station: "S_2")
        try await ride(users[2], 3)
        _ = try await pool.execute("INSERT INTO nextwave_profiles (user_id, display_name) VALUES ($1::uuid, 'Fede \"F\"'), ($2::uuid, 'Ana')", [users[0], users[3]])
        let board = Leaderboard(pool: pool, rides: rides)
        // Every caller (first, in between, last, not ranked) with every limit around them: the rows before and after
        // the caller's are copied in runs.
        for station in [nil, "S_1", "S_2"] as [String?] {
            for user in users.prefix(4) {
                for limit in [0, 1, 2, 3, 50] {
                    let memory = String(decoding: try await board.answer(station: station, limit: limit, user: user), as: UTF8.self)
                    let sql = try await pool.query(CommunitySQL.aggregate(Self.leaderboardSQL(rides)), [station, user, limit])[0].decode(String.self, "body")
                    XCTAssertEqual(memory, sql, "station \(station ?? "all"), limit \(limit)")
                }
            }
        }
        let overall = String(decoding: try await board.answer(station: nil, limit: 50, user: users[3]), as: UTF8.self)
        XCTAssertTrue(overall.hasPrefix(#"[{"rank":1,"display_name":"Anonymous","total_waves":7,"is_me":false}"#), "40 rides in a day count as 5: \(overall)")
        XCTAssertTrue(overall.hasSuffix(#"{"rank":4,"display_name":"Ana","total_waves":0,"is_me":true}]"#), "not ranked yet: \(overall)")
        XCTAssertNotNil(board.held(station: nil, limit: 50, user: users[0]), "held: no query")
        // A caller's answer is kept: asked again it is the same, and the same as the SQL's.
        let expected = try await pool.query(CommunitySQL.aggregate(Self.leaderboardSQL(rides)), [nil as String?, users[0], 50])[0].decode(String.self, "body")
        XCTAssertEqual(board.held(station: nil, limit: 50, user: users[0]).map { String(decoding: $0, as: UTF8.self) }, expected)
        XCTAssertEqual(board.held(station: nil, limit: 50, user: users[0]).map { String(decoding: $0, as: UTF8.self) }, expected)

        // A change: the board is computed again once its refresh interval has passed.
        try await ride(users[3], 9)
        board.changed()
        XCTAssertNotNil(board.held(station: nil, limit: 50, user: users[0]), "within the refresh interval, the board before answers")
        let later = Double(MonotonicClock.now()) / 1e9 + board.bounds.refresh + 1
        XCTAssertNil(board.held(station: nil, limit: 50, user: users[0], now: later))
        let after = String(decoding: try await board.answer(station: nil, limit: 50, user: users[0], now: later), as: UTF8.self)
        XCTAssertTrue(after.contains(#"{"rank":2,"display_name":"Ana","total_waves":5,"is_me":false}"#), after)
        XCTAssertEqual(
            board.held(station: nil, limit: 50, user: users[0], now: later).map { String(decoding: $0, as: UTF8.self) }, after,
            "an answer kept from the board before is not given from the board computed since")
        // A rider deleted: no board answers from memory a moment longer, whatever the refresh interval.
        board.forget()
        XCTAssertNil(board.held(station: nil, limit: 50, user: users[0]))
    }

    func testStatisticsAndBadgesCountAtMostTheRidesOfADay() async throws {
        let rides = RideBounds()
        XCTAssertEqual(rides.ridesPerDay, 30)
        try await ride(users[0], 500)
        let stats = try await pool.query(CommunityFunctions.statsSQL(rides), [users[0]])[0]
        XCTAssertEqual(try stats.decode(Int.self, "total_waves"), 30)
        XCTAssertEqual(try stats.decode(Int.self, "max_waves_one_day"), 30)
        let user = users[0]
        let badges = try await pool.transaction { try CommunityArchive.award(user, rides: rides, on: $0) }.map(\.id)
        XCTAssertTrue(badges.contains("milestone_25"))
        XCTAssertFalse(badges.contains("milestone_50"), "500 rides stamped on one day earn what 30 earn: \(badges)")
        let kept = try await pool.query("SELECT count(*)::int AS n FROM nextwave_history")[0].decode(Int.self, "n")
        XCTAssertEqual(kept, 500, "rows past the bound are kept, not counted")
    }

    func testVerifiedSessionsAreBoundedADayAndInAll() async throws {
        var rides = RideBounds()
        (rides.verifiedPerDay, rides.verifiedInAll) = (2, 3)
        let store = store(rides: rides)
        func write(_ key: String, _ days: Int) async throws -> Int {
            try await store.write(.verifiedSessions, verified(key, startedDaysAgo: days), user: users[0], resolution: .ignoreDuplicates, select: nil).count
        }
        for (key, days) in [("a", 1), ("b", 1)] {
            let written = try await write(key, days)
            XCTAssertEqual(written, 1)
        }
        await XCTAssertRefusal(try await write("c", 1), code: "P0001", "a third session on one day")
        let again = try await write("a", 1)
        XCTAssertEqual(again, 0, "a re-import of a stored session is nothing, and no refusal")
        let other = try await write("d", 2)
        XCTAssertEqual(other, 1)
        await XCTAssertRefusal(try await write("e", 3), code: "P0001", "a fourth in all")
        let stored = try await pool.query("SELECT count(*)::int AS n FROM nextwave_verified_sessions")[0].decode(Int.self, "n")
        XCTAssertEqual(stored, 3, "a refused write stores nothing")
    }

    func testEveryCheckinNotYetArchivedCountsAgainstTheCap() async throws {
        let store = store(checkinsPerUser: 3)
        func checkIn(_ wave: String, minutes: Int) async throws {
            let departure = ISO8601DateFormatter().string(from: Date().addingTimeInterval(Double(minutes * 60)))
            let row = #"{"wave_id":"\#(wave)","user_id":"\#(users[0])","departure_at":"\#(departure)","station_id":"S_1","lake_id":"Zürichsee"}"#
            _ = try await store.write(.checkins, PostgRESTRows(json: Array(row.utf8), columns: nil), user: users[0], resolution: .mergeDuplicates, select: nil)
        }
        for n in 0..<3 { try await checkIn("gone\(n)", minutes: -5) }
        await XCTAssertRefusal(try await checkIn("gone3", minutes: -5), code: "P0001", "departed check-ins count until archived")
        await XCTAssertRefusal(try await checkIn("ahead", minutes: 60), code: "P0001")
        let held = try await pool.query("SELECT count(*)::int AS n FROM nextwave_checkins")[0].decode(Int.self, "n")
        XCTAssertEqual(held, 3)
    }

    func testATokenOfAnotherAppsRegistrationTakesNothingFromARider() async throws {
        let store = store()
        let token = String(repeating: "ab", count: 32)
        let row = try PostgRESTRows(json: Array(#"{"user_id":"\#(users[0])","token":"\#(token)","platform":"ios"}"#.utf8), columns: nil)
        _ = try await store.write(.deviceTokens, row, user: users[0], resolution: .mergeDuplicates, select: nil)
        // The warnings app's /v1/devices registers the same token (somebody copied it).
        _ = try await pool.transaction { try PushDevices.register(token: token, app: "warnings", environment: .production, on: $0) }
        let query = try PostgRESTQuery(pairs: [(name: "select", value: "token"), (name: "user_id", value: "eq.\(users[0])")])
        let held = try await store.read(.deviceTokens, query, user: users[0])
        XCTAssertEqual(held.body, #"[{"token":"\#(token)"}]"#, "the rider's device stays")
        // Within the app, the latest registration wins: another rider registering it takes it.
        let theirs = try PostgRESTRows(json: Array(#"{"user_id":"\#(users[1])","token":"\#(token)","platform":"ios"}"#.utf8), columns: nil)
        _ = try await store.write(.deviceTokens, theirs, user: users[1], resolution: .mergeDuplicates, select: nil)
        let after = try await store.read(.deviceTokens, query, user: users[0])
        XCTAssertEqual(after.count, 0)
        let apps = try await pool.query("SELECT app FROM push_devices ORDER BY app").map { try $0.decode(String.self, "app") }
        XCTAssertEqual(apps, ["nextwave", "warnings"])
    }

    func testANameIsCutNeverRefused() throws {
        XCTAssertEqual(DisplayName.stored("  " + String(repeating: "x", count: 45) + "  "), String(repeating: "x", count: 40))
        XCTAssertEqual(DisplayName.stored("Fe\u{0}de\u{200B}\u{202E}"), "Fede", "control and invisible formatting characters go")
        let surfer = "\u{1F3C4}\u{200D}\u{2640}\u{FE0F}"
        XCTAssertEqual(DisplayName.stored(String(repeating: surfer, count: 50)), String(repeating: surfer, count: 40), "40 characters of emoji sequences")
        let heavy = "e" + String(repeating: "\u{0301}", count: 500)
        XCTAssertEqual(DisplayName.stored(heavy).unicodeScalars.count, DisplayName.maximumScalars, "one character of 501 code points is cut at 200")
        XCTAssertEqual(try DisplayName.normalized(.text(" \u{7} ")), .null, "nothing left is anonymous")
        XCTAssertThrowsError(try DisplayName.normalized(.number("1")))
    }

    func testIdleUsersWhoLeftNothingGo() async throws {
        // users[0] idle and empty; [1] idle with a name; [2] idle but refreshed lately; [3] new.
        try await pool.execute("UPDATE nextwave_users SET created_at = now() - interval '40 days', last_sign_in_at = now() - interval '40 days' WHERE id <> $1::uuid", [users[3]])
        try await pool.execute("UPDATE nextwave_sessions SET refreshed_at = now() - interval '40 days' WHERE user_id <> $1::uuid", [users[2]])
        try await pool.execute("INSERT INTO nextwave_profiles (user_id, display_name) VALUES ($1::uuid, 'Fede')", [users[1]])
        let pruned = try await CommunityUsers.prune(idleDays: 30, in: pool)
        XCTAssertEqual(pruned, 1)
        let left = try await pool.query("SELECT id::text AS id FROM nextwave_users").map { try $0.decode(String.self, "id") }
        XCTAssertEqual(Set(left), Set(users[1...]))
        let sessions = try await pool.query("SELECT count(*)::int AS n FROM nextwave_sessions WHERE user_id = $1::uuid", [users[0]])[0].decode(Int.self, "n")
        XCTAssertEqual(sessions, 0, "their sessions went with them")
        let count = try await CommunityUsers.count(in: pool)
        XCTAssertEqual(count, 3)
    }

    /// The SQL the memory board replaced (ranks with `rank()`, names joined, the caller's row or the unranked one).
    static func leaderboardSQL(_ bounds: RideBounds) -> String {
        """
        WITH totals AS (
            SELECT user_id, count(*) AS total FROM (
                SELECT user_id FROM \(bounds.history(where: "$1::text IS NULL OR station_id = $1")) h
                UNION ALL SELECT user_id FROM \(bounds.verified(where: "$1::text IS NULL OR station_id = $1")) v) t
            GROUP BY user_id),
        ranked AS (SELECT user_id, total, rank() OVER (ORDER BY total DESC)::int AS rank FROM totals),
        others AS (
            SELECT r.rank, coalesce(p.display_name, 'Anonymous') AS display_name, r.total::int AS total_waves, false AS is_me
            FROM ranked r LEFT JOIN nextwave_profiles p ON p.user_id = r.user_id
            WHERE r.user_id <> $2::uuid ORDER BY r.rank, r.user_id LIMIT $3),
        me AS (
            SELECT r.rank, coalesce(p.display_name, 'You') AS display_name, r.total::int AS total_waves, true AS is_me
            FROM ranked r LEFT JOIN nextwave_profiles p ON p.user_id = r.user_id WHERE r.user_id = $2::uuid),
        unranked AS (
            SELECT ((SELECT count(*) FROM ranked) + 1)::int AS rank, coalesce((SELECT display_name FROM nextwave_profiles WHERE user_id = $2::uuid), 'You') AS display_name,
                   0 AS total_waves, true AS is_me
            WHERE NOT EXISTS (SELECT 1 FROM me))
        SELECT * FROM others UNION ALL SELECT * FROM me UNION ALL SELECT * FROM unranked
        """
    }
}

/// `body` fails with PostgREST's `code`.
func XCTAssertRefusal<T>(_ body: @autoclosure () async throws -> T, code: String, _ message: String = "", file: StaticString = #filePath, line: UInt = #line) async {
    do {
        _ = try await body()
        XCTFail("expected a refusal \(code) \(message)", file: file, line: line)
    } catch let error as PostgRESTError {
        XCTAssertEqual(error.code, code, message, file: file, line: line)
    } catch {
        XCTFail("expected PostgREST's \(code), got \(error) \(message)", file: file, line: line)
    }
}
