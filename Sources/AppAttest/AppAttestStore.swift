import Foundation
import Postgres

/// The devices App Attest proved and the challenges they spent, in PostgreSQL (migration 0015), shared by every
/// replica. Each write spends its challenge in the same transaction, so a challenge is used once across replicas and
/// a refused step stores nothing.
public struct AppAttestStore: Sendable {
    /// What is kept of a device.
    public struct Device: Sendable, Equatable {
        public var keyID: [UInt8]
        public var publicKey: [UInt8]
        public var counter: UInt32
        public var app: String
        public var environment: String
        public var revoked: Bool
    }

    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Stores a verified device and spends `challenge`; refused when the challenge was spent or the key is known.
    func register(_ verified: AttestationVerifier.Verified, keyID: [UInt8], challenge: [UInt8], expires: Date) async throws -> Result<Void, AppAttestFailure> {
        do {
            return try await pool.transaction { connection in
                guard try Self.spend(challenge, expires: expires, on: connection) else { return .failure(.challenge("was used already")) }
                let inserted = try connection.execute(
                    """
                    INSERT INTO app_attest_devices (key_id, public_key, counter, app, environment, receipt)
                    VALUES ($1, $2, 0, $3, $4, $5) ON CONFLICT (key_id) DO NOTHING
                    """,
                    [PostgresBytes(keyID), PostgresBytes(verified.publicKey), verified.appID, verified.environment.rawValue, PostgresBytes(verified.receipt)])
                guard inserted == 1 else { throw Refused(failure: .alreadyRegistered) }
                return .success(())
            }
        } catch let refused as Refused {
            return .failure(refused.failure)
        }
    }

    /// The device with `keyID`, if registered.
    public func device(_ keyID: [UInt8]) async throws -> Device? {
        let rows = try await pool.query(
            "SELECT public_key, counter, app, environment, revoked_at IS NOT NULL AS revoked FROM app_attest_devices WHERE key_id = $1",
            [PostgresBytes(keyID)])
        guard let row = rows.first else { return nil }
        return Device(
            keyID: keyID, publicKey: try row.decode(PostgresBytes.self, "public_key").bytes, counter: UInt32(clamping: try row.decode(Int64.self, "counter")),
            app: try row.decode(String.self, "app"), environment: try row.decode(String.self, "environment"), revoked: try row.decode(Bool.self, "revoked"))
    }

    /// Moves the device's counter from `previous` to `counter` and spends `challenge`, in one transaction; refused when
    /// another replica moved the counter first, the device was revoked meanwhile, or the challenge was spent.
    func advance(_ keyID: [UInt8], from previous: UInt32, to counter: UInt32, challenge: [UInt8], expires: Date) async throws -> Result<Void, AppAttestFailure> {
        do {
            return try await pool.transaction { connection in
                guard try Self.spend(challenge, expires: expires, on: connection) else { return .failure(.challenge("was used already")) }
                let moved = try connection.execute(
                    """
                    UPDATE app_attest_devices SET counter = $3, last_seen = now()
                    WHERE key_id = $1 AND counter = $2 AND $3 > counter AND revoked_at IS NULL
                    """, [PostgresBytes(keyID), Int64(previous), Int64(counter)])
                guard moved == 1 else { throw Refused(failure: .counter(counter, expectedAbove: previous)) }
                return .success(())
            }
        } catch let refused as Refused {
            return .failure(refused.failure)
        }
    }

    /// Revokes the device with `keyID`; `false` when none is registered.
    public func revoke(_ keyID: [UInt8]) async throws -> Bool {
        try await pool.execute("UPDATE app_attest_devices SET revoked_at = coalesce(revoked_at, now()) WHERE key_id = $1", [PostgresBytes(keyID)]) == 1
    }

    /// The key ids of every revoked device (few: an operator's list).
    public func revoked() async throws -> Set<[UInt8]> {
        let rows = try await pool.query("SELECT key_id FROM app_attest_devices WHERE revoked_at IS NOT NULL")
        return Set(try rows.map { try $0.decode(PostgresBytes.self, "key_id").bytes })
    }

    /// Records `challenge` as spent; `false` when it was already. Expired records are dropped on the way.
    private static func spend(_ challenge: [UInt8], expires: Date, on connection: PostgresConnection) throws -> Bool {
        _ = try connection.execute("DELETE FROM app_attest_spent_challenges WHERE expires_at < now() - interval '1 minute'")
        return try connection.execute(
            "INSERT INTO app_attest_spent_challenges (challenge, expires_at) VALUES ($1, $2) ON CONFLICT DO NOTHING",
            [PostgresBytes(challenge), expires]) == 1
    }

    /// A refusal decided inside a transaction: thrown to roll it back, answered as the failure.
    private struct Refused: Error {
        let failure: AppAttestFailure
    }
}
