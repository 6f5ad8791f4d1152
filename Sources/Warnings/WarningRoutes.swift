import AnswerCaching
import Feature
import Foundation
import Geography
import HTTPServer
import OnDemand
import Parsing
import WarningsFormat

/// `GET /v1/warnings?lat=..&lon=..&lang=en` (or `place=`): FMI's official warnings in force at a point, most severe
/// first. Points and place names are the weather feature's (``WarningPlaces``).
public struct WarningRoutes: Sendable {
    public static let path = "/v1/warnings"
    /// How long an answer may be reused: warnings are published at any minute, and read every five.
    static let maxAgeSeconds = 60

    private let warnings: WarningsService
    /// The places' ``WarningPlaces/whereabouts(of:)``, held as a function: calling through an optional existential
    /// copied it on every request.
    private let whereabouts: (@Sendable (HTTPRequest) throws -> WarningWhereabouts)?
    private let maxAge: Int
    /// Rendered answers by what was asked (the parsed point, the language, the place's name) and what they were made from
    /// (the warnings' generation, when the feed was last read, whether that is stale), each until the first of its
    /// warnings expires: a repeat skips the area lookup and the assembly of the body. 4,096 answers within 8 MB.
    let answers = AnswerCache<AnswerKey>(entries: 4096, bytes: 8 << 20)

    struct AnswerKey: Hashable, Sendable {
        let latitude: Double
        let longitude: Double
        let language: WarningLanguage
        let location: String?
        let generation: Int
        let readAt: Date
        let stale: Bool

        /// The point and the place tell the keys held at once apart; `==` compares the rest (the synthesized hash
        /// also hashed the language by its name's string).
        func hash(into hasher: inout Hasher) {
            hasher.combine(latitude)
            hasher.combine(longitude)
            hasher.combine(location)
        }
    }

    /// - Parameter places: where `lat`/`lon` or `place=` lie (the weather's); `nil`: `lat`/`lon` only.
    public init(warnings: WarningsService, places: (any WarningPlaces)?, maxAge: Int = 300) {
        self.warnings = warnings
        if let places {
            whereabouts = { request in try places.whereabouts(of: request) }
        } else {
            whereabouts = nil
        }
        self.maxAge = min(maxAge, Self.maxAgeSeconds)
    }

    public func register(in router: inout Router) {
        router.hybrid(.get, Self.path) { [self] request in
            let language = try Self.language(in: request)
            // Not `whereabouts?(request) ?? .known(try Coordinate(…))`: Swift 6.3 loses an error thrown inside `??`'s
            // autoclosure (a typed throw), and the request went on with a garbage point.
            let asked: WarningWhereabouts
            if let whereabouts {
                asked = try whereabouts(request)
            } else {
                asked = .known(try Coordinate(request.query), location: nil)
            }
            switch asked {
            case .known(let point, let location):
                let now = Date()
                let key = warnings.readAt().map {
                    AnswerKey(
                        latitude: point.latitude, longitude: point.longitude, language: language, location: location,
                        generation: warnings.generation, readAt: $0, stale: warnings.isStale(readAt: $0, now: now))
                }
                if let key, let ready = answers.answer(for: key, now: now) { return .response(ready.response(for: request)) }
                if let list = warnings.cachedWarnings(at: point, language: language, now: now) {
                    let answer = try render(list: list, location: location, now: now)
                    // Kept under the key read before the list: a generation that moved in between makes a key nobody asks.
                    if let key { answers.keep(answer, for: key, until: list.until, keyBytes: location?.utf8.count ?? 0) }
                    return .response(answer.response(for: request))
                }
                return .later { try await answer(request, point: point, language: language, location: location) }
            case .resolving(let resolve):
                return .later {
                    let (point, location) = try await resolve()
                    return try await answer(request, point: point, language: language, location: location)
                }
            }
        }
    }

    /// `lang`: `fi`, `sv` or `en` (default); anything else is `400`.
    public static func language(in request: HTTPRequest) throws -> WarningLanguage {
        guard let text = request.query[literal: "lang"] else { return .en }
        guard let language = WarningLanguage(rawValue: text) else {
            throw HTTPError(.badRequest, "lang must be fi, sv or en")
        }
        return language
    }

    private func answer(_ request: HTTPRequest, point: Coordinate, language: WarningLanguage, location: String?) async throws -> HTTPResponse {
        let now = Date()
        return try respond(to: request, list: try await warnings.warnings(at: point, language: language, now: now), location: location, now: now)
    }

    /// `{"location":…,"updated_at":…,"warnings":[…]}`; `503` before the feed was ever read (an empty list would
    /// claim there is no warning), stale-marked when its last reading is older than the schedule allows.
    private func respond(to request: HTTPRequest, list: WarningList, location: String?, now: Date) throws -> HTTPResponse {
        try render(list: list, location: location, now: now).response(for: request)
    }

    private func render(list: WarningList, location: String?, now: Date) throws -> CachedResponse {
        guard let readAt = warnings.readAt() else {
            throw HTTPError(.serviceUnavailable, "FMI's warnings have not been read yet", headers: ["Retry-After": "60"])
        }
        var headers: HTTPHeaders = ["Cache-Control": "public, max-age=\(maxAge)"]
        if warnings.isStale(readAt: readAt, now: now) { headers.markStale(WarningsService.source) }
        let body = "{" + (location.map { "\"location\":" + $0 + "," } ?? "") + "\"updated_at\":\"\(Timestamp.iso8601(readAt))\",\"warnings\":" + list.json + "}"
        return CachedResponse(json: Array(body.utf8), headers: headers)
    }
}
