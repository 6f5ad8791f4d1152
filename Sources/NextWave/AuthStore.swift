import Basics
import BearerSecrets
import Crypto
import Foundation
import Parsing
import Postgres
import Push
import SupabaseAuth

/// Anonymous users and their sessions in PostgreSQL (Migrations/0027): sign-up, the refresh token's rotation, the
/// user's own deletion. The access tokens are short-lived HS256 JWTs nobody stores; a refresh token is stored only as
/// its SHA-256, and its child is derived from it with the server's key, so a racing repeat can be answered again
/// without the child ever being written down.
public final class AuthStore: Sendable {
    public struct Settings: Sendable {
        /// `PIER_NEXTWAVE_ACCESS_TOKEN_S`: an access token's lifetime (Supabase's default, an hour).
        public var accessLifetime: Int64 = 3600
        /// A refresh token used again within this many seconds of its rotation gets the same child (an app's two
        /// requests racing); later it ends the session (Supabase's reuse interval).
        public var reuseInterval: Int64 = 10
        /// `iss` of the access tokens: the auth server's URL as the clients reach it.
        public var issuer = "pier/auth/v1"

        public init() {}
    }

    /// What a session is handed to the client as.
    public struct Session: Sendable, Equatable {
        public var user: AuthUser
        public var sessionID: String
        public var accessToken: String
        public var refreshToken: String
        public var expiresIn: Int64
        public var expiresAt: Int64

        /// The auth server's session object (`/auth/v1/signup`, `/auth/v1/token`).
        public var json: String {
            JSONWriter.text { json in
                json.object { json in
                    json.member("access_token", accessToken)
                    json.member("token_type", "bearer")
                    json.member("expires_in", Int(expiresIn))
                    json.member("expires_at", Int(expiresAt))
                    json.member("refresh_token", refreshToken)
                    json.key("user")
                    user.write(to: &json)
                }
            }
        }
    }

    /// Why a refresh is refused (the auth server's `error_code`s).
    public enum Problem: Error, Equatable, Sendable {
        /// No such token (never issued, its session ended or its user deleted).
        case refreshTokenNotFound
        /// Used before, outside the reuse interval: the session is ended.
        case refreshTokenAlreadyUsed
    }

    private let pool: PostgresPool
    private let jwt: SupabaseJWT
    private let derivation: SymmetricKey
    private let settings: Settings

    public init(pool: PostgresPool, secret: String, settings: Settings = Settings()) {
        self.pool = pool
        self.settings = settings
        jwt = SupabaseJWT(secret: secret)
        // Its own key for deriving refresh tokens, so that no value signed as a JWT can ever be one.
        derivation = SymmetricKey(data: Array(HMAC<SHA256>.authenticationCode(for: Array("pier nextwave refresh tokens".utf8), using: SymmetricKey(data: Array(secret.utf8)))))
    }

    /// A new anonymous user, signed in. `counted` runs first in the same transaction (a network's sign-ups of the day),
    /// and what it throws stores nothing.
    public func signUp(now: Date = Date(), counted: @escaping @Sendable (PostgresConnection) throws -> Void = { _ in }) async throws -> Session {
        let user = UUID().uuidString.lowercased(), session = UUID().uuidString.lowercased()
        let refresh = BearerSecret.make()
        let hash = BearerSecret.digest(refresh)
        let row = try await pool.transaction { connection in
            try counted(connection)
            let row = try connection.query(
                "INSERT INTO nextwave_users AS u (id, created_at, updated_at, last_sign_in_at) VALUES ($1::uuid, to_timestamp($2), to_timestamp($2), to_timestamp($2)) RETURNING \(Self.userColumns)",
                [user, now.timeIntervalSince1970])[0]
            try connection.execute("INSERT INTO nextwave_sessions (id, user_id) VALUES ($1::uuid, $2::uuid)", [session, user])
            try connection.execute("INSERT INTO nextwave_refresh_tokens (token_hash, session_id) VALUES ($1, $2::uuid)", [hash, session])
            return row
        }
        return issue(user: try Self.user(row), session: session, refresh: refresh, now: now)
    }

    /// The session `token` belongs to, with a new access token and the token's child; the token is used up.
    public func refresh(_ token: String, now: Date = Date()) async throws -> Session {
        let hash = BearerSecret.digest(token)
        let child = derive(token)
        let reuse = settings.reuseInterval
        // A refusal is returned, not thrown: thrown, it would roll back the replayed session's deletion.
        let outcome = try await pool.transaction { connection -> Result<(PostgresRow, String), Problem> in
            guard let found = try connection.query(
                """
                SELECT t.session_id::text AS session, extract(epoch FROM now() - t.rotated_at)::float8 AS since
                FROM nextwave_refresh_tokens t WHERE t.token_hash = $1 FOR UPDATE
                """, [hash]).first
            else { return .failure(.refreshTokenNotFound) }
            let session = try found.decode(String.self, "session")
            if let since = try found.decode(Double?.self, "since") {
                guard since <= Double(reuse) else {
                    // Replayed after its rotation: whoever holds it is not the app that rotated it.
                    try connection.execute("DELETE FROM nextwave_sessions WHERE id = $1::uuid", [session])
                    return .failure(.refreshTokenAlreadyUsed)
                }
            } else {
                try connection.execute("UPDATE nextwave_refresh_tokens SET rotated_at = now() WHERE token_hash = $1", [hash])
                try connection.execute(
                    "INSERT INTO nextwave_refresh_tokens (token_hash, session_id) VALUES ($1, $2::uuid) ON CONFLICT (token_hash) DO NOTHING",
                    [BearerSecret.digest(child), session])
                // Used tokens are kept to recognise a replay, but not forever: an app refreshes every hour, and a
                // session's rows would grow by one each time. A token used more than a day ago, replayed, is then
                // unknown (refused as well, without ending the session).
                try connection.execute(
                    "DELETE FROM nextwave_refresh_tokens WHERE session_id = $1::uuid AND rotated_at < now() - interval '1 day'", [session])
            }
            let user = try connection.query(
                """
                WITH s AS (UPDATE nextwave_sessions SET refreshed_at = now() WHERE id = $1::uuid RETURNING user_id)
                SELECT \(Self.userColumns) FROM nextwave_users u JOIN s ON s.user_id = u.id
                """, [session])
            guard let row = user.first else { return .failure(.refreshTokenNotFound) }
            return .success((row, session))
        }
        switch outcome {
        case .failure(let problem): throw problem
        case .success(let (row, session)): return issue(user: try Self.user(row), session: session, refresh: child, now: now)
        }
    }

    /// The user `id`, if it exists — and, when `session` is given, only while that session does (signed out, the access
    /// token's user is not shown any more, as the auth server does).
    public func user(_ id: String, session: String? = nil) async throws -> AuthUser? {
        guard UUID(uuidString: id) != nil else { return nil }
        if let session {
            guard UUID(uuidString: session) != nil else { return nil }
            return try await pool.query(
                "SELECT \(Self.userColumns) FROM nextwave_users u JOIN nextwave_sessions s ON s.user_id = u.id WHERE u.id = $1::uuid AND s.id = $2::uuid",
                [id, session]).first.map(Self.user)
        }
        return try await pool.query("SELECT \(Self.userColumns) FROM nextwave_users u WHERE u.id = $1::uuid", [id]).first.map(Self.user)
    }

    /// Which sessions a sign-out ends (the auth server's `scope`).
    public enum SignOutScope: String, Sendable {
        /// Every session of the user.
        case global
        /// The one the token was issued in.
        case local
        /// Every other one.
        case others
    }

    /// Ends `scope`'s sessions of `user` (their refresh tokens go with them; access tokens run out within their hour).
    public func signOut(user: String, session: String?, scope: SignOutScope) async throws {
        guard UUID(uuidString: user) != nil else { return }
        let current = session.flatMap { UUID(uuidString: $0) }?.uuidString.lowercased()
        switch scope {
        case .global:
            _ = try await pool.execute("DELETE FROM nextwave_sessions WHERE user_id = $1::uuid", [user])
        case .local:
            guard let current else { return }
            _ = try await pool.execute("DELETE FROM nextwave_sessions WHERE user_id = $1::uuid AND id = $2::uuid", [user, current])
        case .others:
            _ = try await pool.execute("DELETE FROM nextwave_sessions WHERE user_id = $1::uuid AND id IS DISTINCT FROM $2::uuid", [user, current])
        }
    }

    /// Deletes the user and everything about them — sessions, check-ins, history, name, badges, verified sessions
    /// (cascading) and their devices' APNs tokens (the push engine's, with their pending pushes). `false`: no such user.
    public func deleteUser(_ id: String) async throws -> Bool {
        try await Self.deleteUser(id, in: pool)
    }

    /// The same for an operator (`pier nextwave delete-user`), without a running community.
    static func deleteUser(_ id: String, in pool: PostgresPool) async throws -> Bool {
        guard UUID(uuidString: id) != nil else { return false }
        return try await pool.transaction { connection in
            try connection.execute(PushDevices.deletion(of: "SELECT device_id FROM nextwave_devices WHERE user_id = $1::uuid"), [id])
            // Another replica hearing it forgets the counts too (``CommunityService/changed(_:)``).
            try CommunityChange.deleted(id).announce(on: connection)
            return try connection.execute("DELETE FROM nextwave_users WHERE id = $1::uuid", [id]) == 1
        }
    }

    private func issue(user: AuthUser, session: String, refresh: String, now: Date) -> Session {
        let issuedAt = Int64(now.timeIntervalSince1970)
        let claims = SupabaseClaims.accessToken(user: user.id, session: session, issuedAt: issuedAt, lifetime: settings.accessLifetime, issuer: settings.issuer)
        return Session(
            user: user, sessionID: session, accessToken: jwt.sign(claims), refreshToken: refresh, expiresIn: settings.accessLifetime,
            expiresAt: issuedAt + settings.accessLifetime)
    }

    /// A refresh token's child: the same for the same parent (a racing repeat), unguessable without the server's key.
    private func derive(_ token: String) -> String {
        Base64URL.encode(Array(HMAC<SHA256>.authenticationCode(for: Array(token.utf8), using: derivation)))
    }

    static let userColumns = "u.id::text AS id, extract(epoch FROM u.created_at)::float8 AS created, extract(epoch FROM u.updated_at)::float8 AS updated, extract(epoch FROM u.last_sign_in_at)::float8 AS signed_in"

    static func user(_ row: PostgresRow) throws -> AuthUser {
        AuthUser(
            id: try row.decode(String.self, "id"), createdAt: Date(timeIntervalSince1970: try row.decode(Double.self, "created")),
            updatedAt: Date(timeIntervalSince1970: try row.decode(Double.self, "updated")),
            lastSignInAt: Date(timeIntervalSince1970: try row.decode(Double.self, "signed_in")))
    }
}
