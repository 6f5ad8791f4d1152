import APNsFormat
import Foundation
import Postgres

/// The devices Pier may notify (`push_devices`): an APNs token of one app (``PushApp``) in one environment under an id
/// of Pier's. A feature registers a device inside its own transaction, beside the row of its own that refers to it
/// (deleted with it). A token is one app's: the same token registered for another app is another device (APNs never
/// gives two apps one token, so seeing it means somebody copied it) and takes nothing from this one.
public enum PushDevices {
    /// Registers `token` of `app` in `environment`, replacing any earlier registration of the same token for that app
    /// (its feature rows and pushes go with it: the app was reinstalled, or the token moved to another registration — the
    /// latest wins). Returns the new id.
    public static func register(token: String, app: String, environment: APNsEnvironment, on connection: PostgresConnection) throws -> String {
        let id = UUID().uuidString.lowercased()
        try connection.execute("DELETE FROM push_devices WHERE app = $1 AND token = $2", [app, token.lowercased()])
        try connection.execute(
            "INSERT INTO push_devices (id, app, token, environment) VALUES ($1::uuid, $2, $3, $4)", [id, app, token.lowercased(), environment.rawValue])
        return id
    }

    /// ``register(token:app:environment:on:)`` for many tokens in two statements (an import): each replaces any earlier
    /// registration of the same token for `app`. Returns each token (lower-case) with its new id.
    public static func register(tokens: [String], app: String, environment: APNsEnvironment, on connection: PostgresConnection) throws -> [String: String] {
        let lowered = PostgresArray.literal(Array(Set(tokens.map { $0.lowercased() })))
        try connection.execute("DELETE FROM push_devices WHERE app = $1 AND token = ANY($2::text[])", [app, lowered])
        let rows = try connection.query(
            "INSERT INTO push_devices (id, app, token, environment) SELECT gen_random_uuid(), $3, t, $2 FROM unnest($1::text[]) t RETURNING id::text AS id, token",
            [lowered, environment.rawValue, app])
        return Dictionary(uniqueKeysWithValues: try rows.map { (try $0.decode(String.self, "token"), try $0.decode(String.self, "id")) })
    }

    /// The device `token` of `app` is registered as, if any.
    public static func device(token: String, app: String, on connection: PostgresConnection) throws -> String? {
        try connection.query("SELECT id::text AS id FROM push_devices WHERE app = $1 AND token = $2", [app, token.lowercased()]).first?.decode(String.self, "id")
    }

    /// A registered device as its feature shows it.
    public struct Device: Sendable, Equatable {
        public var id: String
        public var token: String
        public var environment: APNsEnvironment
        public var createdAt: Date
    }

    /// The device registered as `id`, if any.
    public static func device(_ id: String, on connection: PostgresConnection) throws -> Device? {
        guard let row = try connection.query(
            "SELECT id::text AS id, token, environment, created_at FROM push_devices WHERE id = $1::uuid", [id]).first
        else { return nil }
        return Device(
            id: try row.decode(String.self, "id"), token: try row.decode(String.self, "token"),
            environment: APNsEnvironment(rawValue: try row.decode(String.self, "environment")) ?? .production,
            createdAt: try row.decode(Date.self, "created_at"))
    }

    /// Changes a registered device's token or environment and marks it seen; `false` when there is no such device.
    /// A token held by another registration of the same app moves here (that one is deleted).
    public static func update(_ id: String, token: String, environment: APNsEnvironment, on connection: PostgresConnection) throws -> Bool {
        try connection.execute(
            "DELETE FROM push_devices WHERE token = $1 AND id <> $2::uuid AND app = (SELECT app FROM push_devices WHERE id = $2::uuid)", [token.lowercased(), id])
        return try connection.execute(
            "UPDATE push_devices SET token = $2, environment = $3, seen_at = now() WHERE id = $1::uuid",
            [id, token.lowercased(), environment.rawValue]) == 1
    }

    /// Marks a device seen (its app asked about it): devices unseen for the retention period are deleted.
    public static func touch(_ id: String, on connection: PostgresConnection) throws {
        try connection.execute("UPDATE push_devices SET seen_at = now() WHERE id = $1::uuid", [id])
    }

    /// The statement that deletes the devices whose ids the query `ids` selects (one `uuid` column), with everything that
    /// refers to them and their pending pushes — for a feature's own statement (a CTE, or alone) when the ids come from
    /// its own rows: Push's table stays Push's.
    public static func deletion(of ids: String) -> String {
        "DELETE FROM push_devices WHERE id IN (\(ids))"
    }

    /// The devices as a relation a feature's query may join on its own rows' device ids: `id` (`uuid`) and `token`
    /// (lower-case hex).
    public static let tokens = "(SELECT id, token FROM push_devices)"

    /// Deletes a device with everything that refers to it; `false` when there was none.
    public static func delete(_ id: String, on connection: PostgresConnection) throws -> Bool {
        try connection.execute("DELETE FROM push_devices WHERE id = $1::uuid", [id]) == 1
    }
}
