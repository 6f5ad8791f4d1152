import Basics
import Feature
import Foundation
import HTTPServer
import Parsing
import Push
import WarningPushFormat

/// `POST /v1/devices` registers a device for warnings at its places; `GET`, `PUT` and `DELETE /v1/devices/{id}`
/// with `Authorization: Bearer <secret>` show, change and remove it. Never cached. Refusals, cheapest first: `503`
/// while the push engine is off (no APNs key), `401` without a bearer secret, `400` for a body that is not the
/// documented JSON (naming the member), `401` for another secret, `404` for an unknown id.
struct DeviceRoutes: Sendable {
    static let collection = "/v1/devices"
    static let item = "/v1/devices/{id}"

    let store: WarningSubscriptionStore?
    /// Told when a registration changed, so that a warning already in force over a new place is pushed at once.
    let changed: @Sendable () -> Void

    func register(in router: inout Router) {
        let noStore: HTTPHeaders = ["Cache-Control": "no-store"]
        // The refusals are decided on the event loop; only what needs PostgreSQL leaves it.
        router.hybrid(.post, Self.collection) { [store, changed] request in
            let store = try Self.on(store)
            let registration = try Self.registration(request)
            return .later {
                let made = try await store.create(registration)
                changed()
                let body = "{\"id\":\(JSONString.quote(made.id)),\"secret\":\(JSONString.quote(made.secret))}"
                var headers = noStore
                headers.set("Location", "\(Self.collection)/\(made.id)")
                return .json(Array(body.utf8), status: .created, headers: headers)
            }
        }
        router.hybrid(.get, Self.item) { [store] request in
            let store = try Self.on(store)
            let (id, secret) = try Self.credentials(request)
            return .later {
                guard let stored = try await store.show(id, secret: secret) else { throw try await Self.refusal(id, store) }
                return .json(Self.view(stored), headers: noStore)
            }
        }
        router.hybrid(.put, Self.item) { [store, changed] request in
            let store = try Self.on(store)
            let (id, secret) = try Self.credentials(request)
            let registration = try Self.registration(request)
            return .later {
                guard try await store.update(id, secret: secret, with: registration), let stored = try await store.show(id, secret: secret) else {
                    throw try await Self.refusal(id, store)
                }
                changed()
                return .json(Self.view(stored), headers: noStore)
            }
        }
        router.hybrid(.delete, Self.item) { [store] request in
            let store = try Self.on(store)
            let (id, secret) = try Self.credentials(request)
            return .later {
                guard try await store.delete(id, secret: secret) else { throw try await Self.refusal(id, store) }
                return HTTPResponse(status: .noContent, headers: noStore)
            }
        }
    }

    static let off = HTTPError(
        .serviceUnavailable, "push notifications are off on this server (PIER_APNS_KEY_FILE, PIER_APNS_KEY_ID, PIER_APNS_TEAM_ID and PIER_APNS_TOPIC are not all set)",
        headers: ["Retry-After": "3600"])
    static let unknown = HTTPError(.notFound, "no device with this id (deleted, or never registered)")
    static let wrongSecret = HTTPError(
        .unauthorized, "this is not the secret POST /v1/devices returned for this device", headers: ["WWW-Authenticate": "Bearer"])

    /// Why a device's route found nothing: a wrong secret (`401`) or an unknown id (`404`).
    private static func refusal(_ id: String, _ store: WarningSubscriptionStore) async throws -> HTTPError {
        try await store.exists(id) ? wrongSecret : unknown
    }

    private static func on(_ store: WarningSubscriptionStore?) throws(HTTPError) -> WarningSubscriptionStore {
        guard let store else { throw off }
        return store
    }

    private static func registration(_ request: HTTPRequest) throws(HTTPError) -> DeviceRegistration {
        do { return try DeviceRegistration(json: request.body) } catch { throw HTTPError(.badRequest, error.description) }
    }

    /// The path's id and the bearer secret.
    private static func credentials(_ request: HTTPRequest) throws(HTTPError) -> (id: String, secret: String) {
        let id = try request.parameter("id")
        guard let field = request.headers["authorization"] else { throw unauthorized }
        let parts = field.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer", !parts[1].isEmpty, parts[1].utf8.count <= 128 else { throw unauthorized }
        return (id, String(parts[1]))
    }

    private static let unauthorized = HTTPError(
        .unauthorized, "Authorization: Bearer <the secret POST /v1/devices returned> is required", headers: ["WWW-Authenticate": "Bearer"])

    /// Everything stored about the device, keys sorted like every body Pier writes.
    static func view(_ stored: WarningSubscriptionStore.Stored) -> [UInt8] {
        let registration = stored.registration
        let places = registration.places.map { "{\"lat\":\($0.latitude),\"lon\":\($0.longitude)}" }.joined(separator: ",")
        let body = "{\"all_clear\":\(registration.allClear),\"created_at\":\"\(UTCInstant.string(Int(stored.createdAt.timeIntervalSince1970)))\","
            + "\"environment\":\"\(registration.environment.rawValue)\",\"id\":\(JSONString.quote(stored.id)),\"language\":\"\(registration.language.rawValue)\","
            + "\"min_severity\":\"\(registration.minimumSeverity.name)\",\"places\":[\(places)],"
            + "\"seen_at\":\"\(UTCInstant.string(Int(stored.seenAt.timeIntervalSince1970)))\",\"token\":\(JSONString.quote(registration.token))}"
        return Array(body.utf8)
    }
}
