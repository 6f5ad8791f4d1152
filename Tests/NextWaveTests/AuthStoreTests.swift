import DatabaseTesting
import Foundation
@testable import NextWave
import Parsing
import Postgres
import SupabaseAuth
import XCTest

/// Anonymous sign-up, the refresh token's rotation and a user's own deletion, against a real PostgreSQL.
final class AuthStoreTests: ServiceTestCase {
    private let secret = "super-secret-jwt-token-with-at-least-32-characters-long"
    private var store: AuthStore!

    override func setUp() async throws {
        try await super.setUp()
        store = AuthStore(pool: pool, secret: secret)
    }

    private func count(_ sql: String, _ parameters: [any PostgresEncodable] = []) async throws -> Int {
        try await pool.query(sql, parameters)[0].decode(Int.self, "n")
    }

    func testASignUpIsASessionWhoseAccessTokenNamesTheUser() async throws {
        let session = try await store.signUp()
        let claims = try SupabaseJWT(secret: secret).verify(Substring(session.accessToken))
        XCTAssertEqual(claims.role, "authenticated")
        XCTAssertEqual(claims.subject, session.user.id)
        XCTAssertEqual(claims.sessionID, session.sessionID)
        XCTAssertEqual(session.expiresAt - (claims.issuedAt ?? 0), 3600)
        let stored = try await store.user(session.user.id)
        XCTAssertEqual(stored?.id, session.user.id)
        let plain = try await count("SELECT count(*)::int AS n FROM nextwave_refresh_tokens WHERE token_hash = $1", [session.refreshToken])
        XCTAssertEqual(plain, 0, "a refresh token is stored only as its hash")
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(session.json.utf8)) as? [String: Any])
        let user = try XCTUnwrap(object["user"] as? [String: Any])
        XCTAssertEqual(user["aud"] as? String, "authenticated")
        XCTAssertEqual(user["is_anonymous"] as? Bool, true)
        XCTAssertNotNil(AuthUserTests.date(user["created_at"] as? String), "\(user)")
    }

    func testARefreshTokenRotatesOnceAndAReplayEndsTheSession() async throws {
        let first = try await store.signUp()
        let second = try await store.refresh(first.refreshToken)
        XCTAssertNotEqual(second.refreshToken, first.refreshToken)
        XCTAssertEqual(second.user.id, first.user.id)
        XCTAssertEqual(second.sessionID, first.sessionID)
        // The app's two requests racing: the same child again.
        let racing = try await store.refresh(first.refreshToken)
        XCTAssertEqual(racing.refreshToken, second.refreshToken)
        let third = try await store.refresh(second.refreshToken)
        XCTAssertNotEqual(third.refreshToken, second.refreshToken)

        // Replayed after the reuse interval: the whole session ends, its newest token with it.
        try await pool.execute("UPDATE nextwave_refresh_tokens SET rotated_at = now() - interval '1 minute' WHERE rotated_at IS NOT NULL")
        do {
            _ = try await store.refresh(first.refreshToken)
            XCTFail("a replay is refused")
        } catch let problem as AuthStore.Problem {
            XCTAssertEqual(problem, .refreshTokenAlreadyUsed)
        }
        do {
            _ = try await store.refresh(third.refreshToken)
            XCTFail("the session ended")
        } catch let problem as AuthStore.Problem {
            XCTAssertEqual(problem, .refreshTokenNotFound)
        }
        do {
            _ = try await store.refresh("never-issued")
            XCTFail("unknown")
        } catch let problem as AuthStore.Problem {
            XCTAssertEqual(problem, .refreshTokenNotFound)
        }
        let stillThere = try await store.user(first.user.id)
        XCTAssertNotNil(stillThere, "the user stays; only the session ended")
    }

    func testUsedTokensAreForgottenAfterADaySoASessionsRowsStayBounded() async throws {
        var session = try await store.signUp()
        for _ in 0..<5 { session = try await store.refresh(session.refreshToken) }
        let kept = try await count("SELECT count(*)::int AS n FROM nextwave_refresh_tokens")
        XCTAssertEqual(kept, 6, "used within the day: kept to recognise a replay")
        try await pool.execute("UPDATE nextwave_refresh_tokens SET rotated_at = now() - interval '25 hours' WHERE rotated_at IS NOT NULL")
        let next = try await store.refresh(session.refreshToken)
        let left = try await count("SELECT count(*)::int AS n FROM nextwave_refresh_tokens")
        XCTAssertEqual(left, 2, "the token just used and its child")
        let again = try await store.refresh(next.refreshToken)
        XCTAssertEqual(again.user.id, session.user.id)
    }

    func testAUserDeletedTakesEverythingAboutThemAlong() async throws {
        let gone = try await store.signUp(), kept = try await store.signUp()
        for user in [gone.user.id, kept.user.id] {
            try await pool.execute(
                "INSERT INTO nextwave_checkins (wave_id, user_id, display_name, departure_at) VALUES ('w1', $1::uuid, 'Name', now() + interval '1 hour')", [user])
            try await pool.execute("INSERT INTO nextwave_profiles (user_id, display_name) VALUES ($1::uuid, 'Name')", [user])
            let device = UUID().uuidString.lowercased()
            try await pool.execute("INSERT INTO push_devices (id, app, token, environment) VALUES ($1::uuid, 'nextwave', md5($1::text) || md5($1::text), 'production')", [device])
            try await pool.execute("INSERT INTO nextwave_devices (device_id, user_id) VALUES ($1::uuid, $2::uuid)", [device, user])
        }
        let deleted = try await store.deleteUser(gone.user.id)
        XCTAssertTrue(deleted)
        let again = try await store.deleteUser(gone.user.id)
        XCTAssertFalse(again)
        for table in ["nextwave_checkins", "nextwave_profiles", "nextwave_devices"] {
            let left = try await count("SELECT count(*)::int AS n FROM \(table) WHERE user_id = $1::uuid", [gone.user.id])
            XCTAssertEqual(left, 0, table)
            let other = try await count("SELECT count(*)::int AS n FROM \(table) WHERE user_id = $1::uuid", [kept.user.id])
            XCTAssertEqual(other, 1, table)
        }
        let tokens = try await count("SELECT count(*)::int AS n FROM push_devices")
        XCTAssertEqual(tokens, 1, "the deleted user's APNs token went too")
        do {
            _ = try await store.refresh(gone.refreshToken)
            XCTFail("its sessions went")
        } catch let problem as AuthStore.Problem {
            XCTAssertEqual(problem, .refreshTokenNotFound)
        }
    }
}

final class AuthUserTests: XCTestCase {
    /// supabase-swift decodes the auth server's times as ISO 8601 with fractional seconds.
    static func date(_ text: String?) -> Date? {
        guard let text else { return nil }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: text)
    }

    func testTimesAreWrittenWithMicroseconds() {
        let date = Date(timeIntervalSince1970: 1_800_000_000.25)
        XCTAssertEqual(Timestamp.microseconds(date), "2027-01-15T08:00:00.250000Z")
        XCTAssertEqual(Self.date(Timestamp.microseconds(date))?.timeIntervalSince1970 ?? 0, 1_800_000_000.25, accuracy: 0.001)
    }
}
