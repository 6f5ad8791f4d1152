import Foundation
import Parsing
import SupabaseAuth
import XCTest

/// The HS256 tokens Supabase's clients carry: the public key the apps ship and the access tokens Pier issues.
final class SupabaseJWTTests: XCTestCase {
    private let jwt = SupabaseJWT(secret: "super-secret-jwt-token-with-at-least-32-characters-long")
    private let now = Date(timeIntervalSince1970: 1_800_000_000)

    func testAnAccessTokenRoundTripsWithTheClaimsTheClientsRead() throws {
        let claims = SupabaseClaims.accessToken(user: "6f1c2a9e-3b7d-4c1e-9a2f-5d8e7b6a4c3d", session: "b5c6d7e8-0000-4000-8000-000000000001", issuedAt: 1_800_000_000, lifetime: 3600, issuer: "https://pier.example/auth/v1")
        let token = jwt.sign(claims)
        XCTAssertEqual(try jwt.verify(Substring(token), now: now), claims)
        let payload = try XCTUnwrap(Base64URL.decode(token.split(separator: ".")[1]))
        let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
        XCTAssertEqual(object["aud"] as? String, "authenticated")
        XCTAssertEqual(object["role"] as? String, "authenticated")
        XCTAssertEqual(object["exp"] as? Int, 1_800_003_600)
        XCTAssertEqual(object["is_anonymous"] as? Bool, true)
        XCTAssertEqual((object["amr"] as? [[String: Any]])?.first?["method"] as? String, "anonymous")
    }

    /// The public key a Supabase project ships (no `sub`, `role` anon, signed with the project's secret), as the apps
    /// send it in `apikey`: made by hand here, as Supabase's tooling makes it.
    func testAProjectsAnonKeyIsAccepted() throws {
        let header = Base64URL.encode(Array(#"{"alg":"HS256","typ":"JWT"}"#.utf8))
        let payload = Base64URL.encode(Array(#"{"iss":"supabase","role":"anon","iat":1773187200,"exp":4928860800}"#.utf8))
        let key = "super-secret-jwt-token-with-at-least-32-characters-long"
        let signature = try hmac(header + "." + payload, key: key)
        let claims = try jwt.verify(Substring(header + "." + payload + "." + signature), now: now)
        XCTAssertEqual(claims.role, "anon")
        XCTAssertNil(claims.subject)
    }

    func testForgedExpiredAndOtherAlgorithmsAreRefused() throws {
        let token = jwt.sign(SupabaseClaims(role: "anon", issuedAt: 1_700_000_000, expires: 1_900_000_000))
        let other = SupabaseJWT(secret: "another-secret-another-secret-another-secret")
        XCTAssertThrowsError(try other.verify(Substring(token), now: now)) { XCTAssertEqual($0 as? SupabaseJWT.Problem, .signature) }
        let expired = jwt.sign(SupabaseClaims(role: "anon", issuedAt: 1_700_000_000, expires: 1_700_000_001))
        XCTAssertThrowsError(try jwt.verify(Substring(expired), now: now)) { XCTAssertEqual($0 as? SupabaseJWT.Problem, .expired) }
        let parts = token.split(separator: ".")
        let none = Base64URL.encode(Array(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "." + parts[1] + "."
        XCTAssertThrowsError(try jwt.verify(Substring(none), now: now)) { XCTAssertEqual($0 as? SupabaseJWT.Problem, .algorithm) }
        // The claims changed after signing (a role raised).
        let raised = parts[0] + "." + Base64URL.encode(Array(#"{"role":"service_role","exp":1900000000}"#.utf8)) + "." + parts[2]
        XCTAssertThrowsError(try jwt.verify(Substring(raised), now: now)) { XCTAssertEqual($0 as? SupabaseJWT.Problem, .signature) }
        for garbage in ["", "a.b", "a.b.c.d", "!!!.???.***", String(repeating: "a", count: 5000) + ".b.c"] {
            XCTAssertThrowsError(try jwt.verify(Substring(garbage), now: now)) { XCTAssertEqual($0 as? SupabaseJWT.Problem, .malformed, garbage.prefix(20).description) }
        }
    }

    /// HMAC-SHA256 by openssl, independent of the code under test, as a project's key would be made by hand.
    private func hmac(_ text: String, key: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/openssl")
        process.arguments = ["dgst", "-sha256", "-mac", "HMAC", "-macopt", "key:\(key)", "-binary"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(text.utf8))
        try input.fileHandleForWriting.close()
        let signature = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        XCTAssertEqual(signature.count, 32)
        return Base64URL.encode(Array(signature))
    }
}
