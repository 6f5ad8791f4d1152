import APNsFormat
import BearerSecrets
import Feature
import Foundation
import Geography
import Parsing
import Postgres
import Push
import WarningPushFormat
import Warnings
import WarningsFormat

/// Registrations for warnings in PostgreSQL (`warning_subscriptions`, each row beside the push engine's device it refers
/// to, asked through ``PushDevices``): made, shown, changed and deleted with the secret the registration returned (only
/// its SHA-256 is kept).
public final class WarningSubscriptionStore: Sendable {
    /// A registration as `GET /v1/devices/{id}` shows it: everything stored about the device.
    public struct Stored: Sendable, Equatable {
        public var id: String
        public var registration: DeviceRegistration
        public var createdAt: Date
        public var seenAt: Date
    }

    private let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Registers the device (replacing the token's earlier registration); returns its id and secret. `counted` runs
    /// first in the same transaction (the network's registrations of the day): what it throws stores nothing.
    public func create(
        _ registration: DeviceRegistration, counted: @escaping @Sendable (PostgresConnection) throws -> Void = { _ in }
    ) async throws -> (id: String, secret: String) {
        let secret = BearerSecret.make()
        let hash = BearerSecret.digest(secret)
        let id = try await pool.transaction { connection in
            try counted(connection)
            let id = try PushDevices.register(token: registration.token, app: WarningPushFeature.app, environment: registration.environment, on: connection)
            try connection.execute(
                """
                INSERT INTO warning_subscriptions (device_id, secret_hash, language, places, min_severity, all_clear)
                VALUES ($1::uuid, $2, $3, ST_GeomFromText($4, 4326), $5, $6)
                """, [id, hash, registration.language.rawValue, Self.multipoint(registration.places), registration.minimumSeverity.rawValue, registration.allClear])
            return id
        }
        return (id, secret)
    }

    /// Replaces what device `id` asked for; `false` when no registration has this id and secret.
    public func update(_ id: String, secret: String, with registration: DeviceRegistration) async throws -> Bool {
        guard Self.isID(id) else { return false }
        let hash = BearerSecret.digest(secret)
        return try await pool.transaction { connection in
            let updated = try connection.execute(
                """
                UPDATE warning_subscriptions SET language = $3, places = ST_GeomFromText($4, 4326), min_severity = $5, all_clear = $6, updated_at = now()
                WHERE device_id = $1::uuid AND secret_hash = $2
                """, [id, hash, registration.language.rawValue, Self.multipoint(registration.places), registration.minimumSeverity.rawValue, registration.allClear])
            guard updated == 1 else { return false }
            return try PushDevices.update(id, token: registration.token, environment: registration.environment, on: connection)
        }
    }

    /// The registration, marking the device seen; `nil` when no registration has this id and secret.
    public func show(_ id: String, secret: String) async throws -> Stored? {
        guard Self.isID(id) else { return nil }
        let hash = BearerSecret.digest(secret)
        return try await pool.transaction { connection -> Stored? in
            guard
                let row = try connection.query(
                    """
                    SELECT s.language, ST_AsText(s.places) AS places, s.min_severity::int AS severity, s.all_clear, now() AS seen_at
                    FROM warning_subscriptions s WHERE s.device_id = $1::uuid AND s.secret_hash = $2
                    """, [id, hash]
                ).first,
                let device = try PushDevices.device(id, on: connection)
            else { return nil }
            try PushDevices.touch(id, on: connection)
            return Stored(
                id: device.id,
                registration: DeviceRegistration(
                    token: device.token, environment: device.environment,
                    language: WarningLanguage(rawValue: try row.decode(String.self, "language")) ?? .fi,
                    places: Self.points(try row.decode(String.self, "places")),
                    minimumSeverity: CAPSeverity(rawValue: try row.decode(Int.self, "severity")) ?? .moderate,
                    allClear: try row.decode(Bool.self, "all_clear")),
                createdAt: device.createdAt, seenAt: try row.decode(Date.self, "seen_at"))
        }
    }

    /// Deletes the device with everything about it; `false` when no registration has this id and secret.
    public func delete(_ id: String, secret: String) async throws -> Bool {
        guard Self.isID(id) else { return false }
        let hash = BearerSecret.digest(secret)
        return try await pool.transaction { connection in
            guard try !connection.query("SELECT 1 FROM warning_subscriptions WHERE device_id = $1::uuid AND secret_hash = $2", [id, hash]).isEmpty
            else { return false }
            return try PushDevices.delete(id, on: connection)
        }
    }

    /// Whether a registration has this id (whatever the secret): a wrong secret is `401`, an unknown id `404`.
    public func exists(_ id: String) async throws -> Bool {
        guard Self.isID(id) else { return false }
        return try await !pool.query("SELECT 1 FROM warning_subscriptions WHERE device_id = $1::uuid", [id]).isEmpty
    }

    /// A UUID as PostgreSQL writes it (anything else would make the cast fail: it is simply no registration).
    static func isID(_ text: String) -> Bool {
        UUID(uuidString: text) != nil
    }

    /// `MULTIPOINT(lon lat, …)`.
    static func multipoint(_ places: [Coordinate]) -> String {
        "MULTIPOINT(" + places.map { "\($0.longitude) \($0.latitude)" }.joined(separator: ",") + ")"
    }

    /// The points of `MULTIPOINT(lon lat,…)` or `MULTIPOINT((lon lat),…)` as PostGIS writes it.
    static func points(_ text: String) -> [Coordinate] {
        guard let open = text.firstIndex(of: "("), let close = text.lastIndex(of: ")"), open < close else { return [] }
        return text[text.index(after: open)..<close].split(separator: ",").compactMap { pair in
            let numbers = pair.filter { $0 != "(" && $0 != ")" }.split(separator: " ").compactMap { Double($0) }
            guard numbers.count == 2 else { return nil }
            return Coordinate(latitude: numbers[1], longitude: numbers[0])
        }
    }
}
