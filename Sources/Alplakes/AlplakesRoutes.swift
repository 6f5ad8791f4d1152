import AlplakesFormat
import AnswerCaching
import Foundation
import HTTPServer

/// The Alplakes drop-in routes under `/v1/alplakes/…` (the app changes only its base URL) and
/// `/v1/lake-temperatures` (all lakes in one answer), served from memory.
public final class AlplakesRoutes: Sendable {
    public static let profilePath = "/v1/alplakes/simulations/1d/profile/simstrat/{lake}/{time}"
    public static let pointPath = "/v1/alplakes/simulations/1d/point/simstrat/{lake}/{start}/{end}/{depth}"
    public static let temperaturesPath = "/v1/lake-temperatures"

    private let service: AlplakesService
    private let maxAge: Int
    /// `/v1/lake-temperatures`' answer until it turns, and each lake's profile as fetched; dropped when the lakes change.
    /// The keys are the lakes Pier fetches (any other is `404` before the cache), so the bounds are never reached.
    private let answers = AnswerCache<Answer>(entries: 64, bytes: 16 << 20)

    private enum Answer: Hashable, Sendable {
        case temperatures
        case profile(lake: String, fetchedAt: Date)
    }

    /// - Parameter maxAge: `Cache-Control: max-age` of the answers (they change when a fetch lands).
    public init(service: AlplakesService, maxAge: Int = 300) {
        self.service = service
        self.maxAge = maxAge
        service.changes.observe { [answers] in answers.removeAll() }
    }

    public func register(in router: inout Router) {
        router.on(.get, Self.profilePath) { [self] request in try profile(request) }
        router.on(.get, Self.pointPath) { [self] request in try point(request) }
        router.on(.get, Self.temperaturesPath) { [self] request in lakeTemperatures(request) }
    }

    /// The profile Pier holds for the lake, whatever minute was asked (the upstream answers the model step
    /// nearest; Pier's is the newest it fetched): never an error while one is held — the app stops loading
    /// lakes at its first failure.
    func profile(_ request: HTTPRequest) throws -> HTTPResponse {
        let key = try request.parameter("lake"), time = try request.parameter("time")
        let lake = try held(key)
        guard AlplakesTime.path(time) != nil else { throw HTTPError(.badRequest, "time must be yyyyMMddHHmm (UTC), not '\(time.prefix(20))'") }
        let held = Answer.profile(lake: key, fetchedAt: lake.fetchedAt)
        if let cached = answers.answer(for: held) { return cached.response(for: request) }
        let response = CachedResponse(json: lake.profile.body, headers: ["Cache-Control": "public, max-age=\(maxAge)"])
        answers.keep(response, for: held, keyBytes: key.utf8.count)
        return response.response(for: request)
    }

    /// The depth-0 series restricted to `[start, end]`.
    func point(_ request: HTTPRequest) throws -> HTTPResponse {
        let key = try request.parameter("lake"), startText = try request.parameter("start")
        let endText = try request.parameter("end"), depth = try request.parameter("depth")
        let lake = try held(key)
        guard let start = AlplakesTime.path(startText) else { throw HTTPError(.badRequest, "start must be yyyyMMddHHmm (UTC), not '\(startText.prefix(20))'") }
        guard let end = AlplakesTime.path(endText) else { throw HTTPError(.badRequest, "end must be yyyyMMddHHmm (UTC), not '\(endText.prefix(20))'") }
        guard start < end else { throw HTTPError(.badRequest, "start must be before end") }
        guard let metres = Double(depth), metres == 0 else {
            throw HTTPError(.badRequest, "depth must be 0: Pier holds the surface series only, not '\(depth.prefix(20))'")
        }
        return CachedResponse(json: lake.series.restricted(from: start, to: end), headers: ["Cache-Control": "public, max-age=\(maxAge)"])
            .response(for: request)
    }

    func lakeTemperatures(_ request: HTTPRequest) -> HTTPResponse {
        let now = Date()
        if let cached = answers.answer(for: .temperatures, now: now) { return cached.response(for: request) }
        let lakes = service.lakes
        guard !lakes.isEmpty else {
            return HTTPError(.serviceUnavailable, "no lake temperatures fetched yet", headers: ["Retry-After": "60"]).response
        }
        let (body, until) = LakeTemperatures.render(Array(lakes.values), order: service.settings.lakes, now: now)
        let seconds = max(1, min(maxAge, Int(until.timeIntervalSince(now).rounded(.down))))
        let response = CachedResponse(json: body, headers: ["Cache-Control": "public, max-age=\(seconds)"])
        answers.keep(response, for: .temperatures, until: until)
        return response.response(for: request)
    }

    /// The lake's data: `404` for a lake Pier does not fetch, `503` before its first fetch.
    private func held(_ key: String) throws -> AlplakesLake {
        guard service.settings.lakes.contains(key) else {
            throw HTTPError(.notFound, "Pier fetches no Alplakes lake '\(key.prefix(40))' (it knows: \(service.settings.lakes.joined(separator: ", ")))")
        }
        guard let lake = service.lakes[key] else {
            throw HTTPError(.serviceUnavailable, "no data fetched yet for \(key)", headers: ["Retry-After": "60"])
        }
        return lake
    }
}
