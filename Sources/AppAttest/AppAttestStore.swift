import Foundation
import Limits
import Parsing
import Postgres

/// The devices App Attest proved, the challenges spent and the debug devices (migrations 0015–0017; the registrations
/// per network are Limits' ``DailyCounter``),
/// shared by every replica. A challenge is spent by the first request that shows it, before any work for it, so it is
/// tried once across replicas whatever the outcome; a refused step stores nothing else.
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

    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// What became of a verified registration.
    enum Registration: Sendable, Equatable {
        case stored
        case refused(AppAttestFailure)
        /// The network has registered its day's devices.
        case networkSpent
    }

    /// A debug device as the operator's list shows it.
    public struct DebugDevice: Sendable, Equatable {
        public var name: String
        public var created: Date
        public var revoked: Date?
    }

    /// Names a debug device whose token hashes to `hash`; `false` when the name was used before (names are never reused).
    public func createDebugDevice(_ name: String, tokenHash hash: [UInt8]) async throws -> Bool {
        try await pool.execute(
            "INSERT INTO app_attest_debug_tokens (name, token_hash) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING", [name, PostgresBytes(hash)]) == 1
    }

    /// Every debug device, by name.
    public func debugDevices() async throws -> [DebugDevice] {
        try await pool.query("SELECT name, created_at, revoked_at FROM app_attest_debug_tokens ORDER BY name").map { row in
            DebugDevice(name: try row.decode(String.self, "name"), created: try row.decode(Date.self, "created_at"), revoked: try row.decode(Date?.self, "revoked_at"))
        }
    }

    /// Revokes the debug device `name`; `false` when there is none.
    public func revokeDebugDevice(_ name: String) async throws -> Bool {
        try await pool.execute("UPDATE app_attest_debug_tokens SET revoked_at = coalesce(revoked_at, now()) WHERE name = $1", [name]) == 1
    }

    /// The debug devices not revoked: their tokens' hashes and names (few: an operator's list).
    func activeDebugDevices() async throws -> [[UInt8]: String] {
        let rows = try await pool.query("SELECT name, token_hash FROM app_attest_debug_tokens WHERE revoked_at IS NULL")
        var devices: [[UInt8]: String] = [:]
        for row in rows { devices[try row.decode(PostgresBytes.self, "token_hash").bytes] = try row.decode(String.self, "name") }
        return devices
    }

    /// Records `challenge` as spent, before any work is done for it: a challenge is tried once, whatever the outcome.
    /// `false` when it was spent already. Expired records are dropped on the way.
    func spend(_ challenge: [UInt8], expires: Date) async throws -> Bool {
        try await pool.transaction { connection in
            _ = try connection.execute("DELETE FROM app_attest_spent_challenges WHERE expires_at < now() - interval '1 minute'")
            return try connection.execute(
                "INSERT INTO app_attest_spent_challenges (challenge, expires_at) VALUES ($1, $2) ON CONFLICT DO NOTHING",
                [PostgresBytes(challenge), expires]) == 1
        }
    }

    /// Where a registration is counted: its network's count of the day.
    struct Counted: Sendable {
        var counter: DailyCounter
        var key: String
        var day: CalendarDate
    }

    /// Stores a verified device, counted against its network's registrations of the day (none without an address);
    /// refused when the key is known or the network has registered its day's devices.
    func register(_ verified: AttestationVerifier.Verified, keyID: [UInt8], network: Counted?) async throws -> Registration {
        do {
            return try await pool.transaction { connection in
                if let network, try !network.counter.take(network.key, day: network.day, on: connection) {
                    throw Refused(outcome: .networkSpent)
                }
                let inserted = try connection.execute(
                    """
                    INSERT INTO app_attest_devices (key_id, public_key, counter, app, environment, receipt)
                    VALUES ($1, $2, 0, $3, $4, $5) ON CONFLICT (key_id) DO NOTHING
                    """,
                    [PostgresBytes(keyID), PostgresBytes(verified.publicKey), verified.appID, verified.environment.rawValue, PostgresBytes(verified.receipt)])
                guard inserted == 1 else { throw Refused(outcome: .refused(.alreadyRegistered)) }
                return .stored
            }
        } catch let refused as Refused {
            return refused.outcome
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

    /// Moves the device's counter from `previous` to `counter`; refused when another replica moved the counter first
    /// or the device was revoked meanwhile.
    func advance(_ keyID: [UInt8], from previous: UInt32, to counter: UInt32) async throws -> Result<Void, AppAttestFailure> {
        let moved = try await pool.execute(
            """
            UPDATE app_attest_devices SET counter = $3, last_seen = now()
            WHERE key_id = $1 AND counter = $2 AND $3 > counter AND revoked_at IS NULL
            """, [PostgresBytes(keyID), Int64(previous), Int64(counter)])
        return moved == 1 ? .success(()) : .failure(.counter(counter, expectedAbove: previous))
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

    /// A refusal decided inside a transaction: thrown to roll it back, answered as the failure.
    private struct Refused: Error {
        let outcome: Registration
    }
}
