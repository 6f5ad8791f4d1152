import Basics
import Feature
import Foundation
import Geography
import HTTPServer
import OnDemand
import Parsing
import Push
import WarningPushFormat
import Warnings

/// `POST /v1/devices` registers a device for warnings at its places; `GET`, `PUT` and `DELETE /v1/devices/{id}`
/// with `Authorization: Bearer <secret>` show, change and remove it. Never cached. Refusals, cheapest first: `503`
/// while the push engine is off (no APNs key), `401` without a bearer secret, `400` for a body that is not the
/// documented JSON (naming the member), then what a registration or a change may cost (``RegistrationLimits``: `401`
/// without the App Attest token `require` asks for, `429` past the client's share or its network's registrations of
/// the day), `401` for another secret, `404` for an unknown id.
struct DeviceRoutes: Sendable {
    static let collection = "/v1/devices"
    static let item = "/v1/devices/{id}"

    /// The registrations and what making one may cost: `nil` while the push engine is off.
    let on: (store: WarningSubscriptionStore, limits: RegistrationLimits)?
    /// The points of places saved by name (the weather's names, FMI's): read when a registration names one.
    let places: (any WarningPlaces)?
    /// Told when a registration changed, so that a warning already in force over a new place is pushed at once.
    let changed: @Sendable () -> Void

    func register(in router: inout Router) {
        let noStore: HTTPHeaders = ["Cache-Control": "no-store"]
        // The refusals are decided on the event loop; only what needs PostgreSQL leaves it.
        router.hybrid(.post, Self.collection) { [on, places, changed] request in
            let (store, limits) = try Self.running(on)
            let asked = try Self.registration(request)
            let admitted = try limits.admit(request)
            let named = try Self.whereabouts(of: asked, for: request, places: places)
            return .later {
                let registration = asked.resolved(try await Self.points(named))
                let made = try await store.create(registration, counted: { try limits.take(admitted, on: $0) })
                changed()
                let body = JSONWriter.make { json in
                    json.object { json in
                        json.member("id", made.id)
                        json.member("secret", made.secret)
                    }
                }
                var headers = noStore
                headers.set("Location", "\(Self.collection)/\(made.id)")
                return .json(body, status: .created, headers: headers)
            }
        }
        router.hybrid(.get, Self.item) { [on] request in
            let store = try Self.running(on).store
            let (id, secret) = try Self.credentials(request)
            return .later {
                guard let stored = try await store.show(id, secret: secret) else { throw try await Self.refusal(id, store) }
                return .json(Self.view(stored), headers: noStore)
            }
        }
        router.hybrid(.put, Self.item) { [on, places, changed] request in
            let (store, limits) = try Self.running(on)
            let (id, secret) = try Self.credentials(request)
            let asked = try Self.registration(request)
            // A change moves places like a registration (the notifier looks again): it spends the same share; the
            // network's day counts new devices only.
            _ = try limits.admit(request)
            let named = try Self.whereabouts(of: asked, for: request, places: places)
            return .later {
                let registration = asked.resolved(try await Self.points(named))
                guard try await store.update(id, secret: secret, with: registration), let stored = try await store.show(id, secret: secret) else {
                    throw try await Self.refusal(id, store)
                }
                changed()
                return .json(Self.view(stored), headers: noStore)
            }
        }
        router.hybrid(.delete, Self.item) { [on] request in
            let store = try Self.running(on).store
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

    private static func running(
        _ on: (store: WarningSubscriptionStore, limits: RegistrationLimits)?
    ) throws(HTTPError) -> (store: WarningSubscriptionStore, limits: RegistrationLimits) {
        guard let on else { throw off }
        return on
    }

    private static func registration(_ request: HTTPRequest) throws(HTTPError) -> DeviceRegistration {
        do { return try DeviceRegistration(json: request.body) } catch { throw HTTPError(.badRequest, error.description) }
    }

    /// Where the places saved by name lie (memory now, or FMI off the loop on the share of whoever `request` counts as).
    private static func whereabouts(
        of registration: DeviceRegistration, for request: HTTPRequest, places: (any WarningPlaces)?
    ) throws -> [WarningWhereabouts] {
        guard !registration.placeNames.isEmpty else { return [] }
        guard let places else { throw HTTPError(.badRequest, "places: this server looks up no place by name; send {\"lat\": …, \"lon\": …}") }
        do { return try registration.placeNames.map { try places.whereabouts(ofPlace: $0, for: request) } } catch { throw placeRefusal(error) }
    }

    /// The points of `whereabouts`, resolving those memory did not hold.
    private static func points(_ whereabouts: [WarningWhereabouts]) async throws -> [Coordinate] {
        var points: [Coordinate] = []
        for place in whereabouts {
            switch place {
            case .known(let point, _): points.append(point)
            case .resolving(let resolve):
                do { points.append(try await resolve().0) } catch { throw placeRefusal(error) }
            }
        }
        return points
    }

    /// A name FMI does not know or a place outside its coverage is `422`, naming the member at fault (never the name):
    /// not `404` as `/v1/weather?place=` says it, because on `/v1/devices/{id}` a `404` tells the app its registration is
    /// gone and to register anew. FMI unavailable, or the client's share spent, stays as the one refusal rule says.
    private static func placeRefusal(_ error: any Error) -> any Error {
        guard let refused = error as? HTTPError, refused.status == .notFound || refused.status == .unprocessableContent else { return error }
        return HTTPError(.unprocessableContent, "places: \(refused.message)")
    }

    /// The path's id and the bearer secret.
    private static func credentials(_ request: HTTPRequest) throws(HTTPError) -> (id: String, secret: String) {
        let id = try request.parameter("id")
        guard let field = request.headers["authorization"], let token = BearerToken.credentials(field), token.utf8.count <= 128
        else { throw unauthorized }
        return (id, String(token))
    }

    private static let unauthorized = HTTPError(
        .unauthorized, "Authorization: Bearer <the secret POST /v1/devices returned> is required", headers: ["WWW-Authenticate": "Bearer"])

    /// Everything stored about the device, keys sorted like every body Pier writes.
    static func view(_ stored: WarningSubscriptionStore.Stored) -> [UInt8] {
        let registration = stored.registration
        return JSONWriter.make { json in
            json.object { json in
                json.member("all_clear", registration.allClear)
                json.member("created_at", UTCInstant.string(Int(stored.createdAt.timeIntervalSince1970)))
                json.member("environment", registration.environment.rawValue)
                json.member("id", stored.id)
                json.member("language", registration.language.rawValue)
                json.member("min_severity", registration.minimumSeverity.name)
                json.member("places", array: { json in
                    for place in registration.places {
                        // The coordinates as Swift describes them (`60.0`), as they always came.
                        json.object { json in
                            json.key("lat")
                            json.number(described: place.latitude)
                            json.key("lon")
                            json.number(described: place.longitude)
                        }
                    }
                })
                json.member("seen_at", UTCInstant.string(Int(stored.seenAt.timeIntervalSince1970)))
                json.member("token", registration.token)
            }
        }
    }
}
