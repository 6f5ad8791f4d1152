import DatabaseTesting
import Feature
import Foundation
import HTTPServer
@testable import NextWave
import Scheduling
import SupabaseAuth
import UpstreamHTTP
import XCTest

/// Who a request is: read from its headers' bytes once its key and token were verified, and the same as the
/// credentials' way for every request — the refusals included, which only the credentials' way words.
final class CommunityCallerTests: ServiceTestCase {
    private let secret = "super-secret-jwt-token-with-at-least-32-characters-long"

    private func service() -> CommunityService {
        let board = SourceStatusBoard()
        let context = FeatureContext(
            pool: pool, upstream: UpstreamClient(), board: board, runner: FetchRunner(log: FetchRunLog(pool: pool), board: board), metrics: nil,
            retry: RetryPolicy(initial: .seconds(1), maximum: .seconds(2)), runTimeout: .seconds(5), cacheMaxAge: 60, upstreamsAreRecordings: true)
        return CommunityService(settings: NextWaveSettings(), secret: secret, context: context)
    }

    private func request(_ fields: [(String, String)]) -> HTTPRequest {
        HTTPRequest(method: .post, target: "/rest/v1/rpc/wave_leaderboard", path: "/rest/v1/rpc/wave_leaderboard", headers: HTTPHeaders(fields))
    }

    private func outcome(_ community: CommunityService, _ request: HTTPRequest, now: Date) -> Result<CommunityCaller, CommunityCaller.Problem> {
        Result { () throws(CommunityCaller.Problem) in try community.caller(of: request, now: now) }
    }

    func testTheHeadersBytesNameTheCallerTheCredentialsName() throws {
        let jwt = SupabaseJWT(secret: secret)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let key = jwt.sign(SupabaseClaims(role: "anon", issuedAt: 1_700_000_000, expires: 1_900_000_000))
        let user = "6f1c2a9e-3b7d-4c1e-9a2f-5d8e7b6a4c3d"
        let session = "b5c6d7e8-0000-4000-8000-000000000001"
        let access = jwt.sign(SupabaseClaims.accessToken(user: user, session: session, issuedAt: 1_800_000_000, lifetime: 3600, issuer: "https://pier.example/auth/v1"))
        let other = SupabaseJWT(secret: "another-secret-another-secret-another-secret").sign(SupabaseClaims(role: "anon", issuedAt: 1_700_000_000, expires: 1_900_000_000))
        let cases: [(fields: [(String, String)], expected: Result<CommunityCaller, CommunityCaller.Problem>)] = [
            ([("apikey", key)], .success(.anonymous)),
            ([("apikey", key), ("Authorization", "Bearer \(key)")], .success(.anonymous)),
            ([("apikey", key), ("Authorization", "bearer \(access)")], .success(.user(id: user, session: session))),
            ([("apikey", key), ("Authorization", "  Bearer \(access)")], .success(.user(id: user, session: session))),
            ([("apikey", key), ("Authorization", "Basic \(access)")], .failure(.badToken)),
            ([("apikey", key), ("Authorization", "Bearer ")], .failure(.badToken)),
            ([("apikey", key), ("Authorization", "Bearer \(access)x")], .failure(.badToken)),
            ([("apikey", key), ("Authorization", "Bearer \(other)")], .failure(.badToken)),
            ([("apikey", other), ("Authorization", "Bearer \(access)")], .failure(.badKey)),
            ([("Authorization", "Bearer \(access)")], .failure(.noKey)),
            ([("apikey", "")], .failure(.noKey)),
        ]
        let community = service()
        // Twice each: the first verifies and remembers, the second is read from the headers' bytes.
        for round in 0..<2 {
            for (fields, expected) in cases {
                XCTAssertEqual(outcome(community, request(fields), now: now), expected, "\(fields.map(\.0)) round \(round)")
            }
        }
        // Past its expiry a remembered token is verified again, and refused as expired.
        let later = now.addingTimeInterval(3601)
        XCTAssertEqual(outcome(community, request([("apikey", key), ("Authorization", "Bearer \(access)")]), now: later), .failure(.expired))
    }
}
