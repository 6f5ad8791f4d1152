import Feature
import Foundation
import HTTPServer
import Parsing
import Warnings

/// `GET /v1/warnings?lat=..&lon=..&lang=en` (or `place=`): FMI's official warnings in force at a point, most severe
/// first. Served here, beside `/v1/weather`, because points and place names are the weather feature's.
public struct WarningRoutes: Sendable {
    public static let path = "/v1/warnings"
    /// How long an answer may be reused: warnings are published at any minute, and read every five.
    static let maxAgeSeconds = 60

    private let warnings: WarningsService
    private let places: PlaceResolver
    private let maxAge: Int

    public init(warnings: WarningsService, places: PlaceResolver, maxAge: Int = 300) {
        self.warnings = warnings
        self.places = places
        self.maxAge = min(maxAge, Self.maxAgeSeconds)
    }

    public func register(in router: inout Router) {
        router.hybrid(.get, Self.path) { [self] request in
            let language = try Self.language(in: request)
            switch try WeatherRoutes.whereabouts(of: request, places: places, anywhere: true) {
            case .known(let point, let place):
                let now = Date()
                if let list = warnings.cachedWarnings(at: point, language: language, now: now) {
                    return .response(try respond(to: request, list: list, location: place, now: now))
                }
                return .later { try await answer(request, point: point, language: language, location: place) }
            case .resolving(let resolve):
                return .later {
                    let (point, place, _) = try await resolve()
                    return try await answer(request, point: point, language: language, location: place)
                }
            }
        }
    }

    /// `lang`: `fi`, `sv` or `en` (default); anything else is `400`.
    static func language(in request: HTTPRequest) throws -> WarningLanguage {
        guard let text = request.query["lang"] else { return .en }
        guard let language = WarningLanguage(rawValue: text) else {
            throw HTTPError(.badRequest, "lang must be fi, sv or en")
        }
        return language
    }

    private func answer(_ request: HTTPRequest, point: Coordinate, language: WarningLanguage, location: PlaceResolver.Place?) async throws -> HTTPResponse {
        let now = Date()
        return try respond(to: request, list: try await warnings.warnings(at: point, language: language, now: now), location: location, now: now)
    }

    /// `{"location":…,"updated_at":…,"warnings":[…]}`; `503` before the feed was ever read (an empty list would
    /// claim there is no warning), stale-marked when its last reading is older than the schedule allows.
    private func respond(to request: HTTPRequest, list: WarningList, location: PlaceResolver.Place?, now: Date) throws -> HTTPResponse {
        guard let readAt = warnings.readAt() else {
            throw HTTPError(.serviceUnavailable, "FMI's warnings have not been read yet", headers: ["Retry-After": "60"])
        }
        var headers: HTTPHeaders = ["Cache-Control": "public, max-age=\(maxAge)"]
        if warnings.isStale(now: now) { headers.markStale(WarningsService.source) }
        let body = "{" + (location.map { "\"location\":" + $0.json + "," } ?? "") + "\"updated_at\":\"\(Timestamp.iso8601(readAt))\",\"warnings\":" + list.json + "}"
        return CachedResponse(json: Array(body.utf8), headers: headers).response(for: request)
    }
}
