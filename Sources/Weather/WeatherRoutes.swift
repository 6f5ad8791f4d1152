import AnswerCaching
import FMIFormat
import Feature
import Foundation
import Geography
import HTTPServer
import Identity
import Metrics
import Parsing
import Warnings
import WarningsFormat

/// `GET /v1/weather?lat=..&lon=..`: the nearest station's latest observation and the point's daily forecast.
public struct WeatherRoutes: Sendable {
    public static let path = "/v1/weather"
    /// Where FMI has stations: its "whole Finland" box with half a degree of margin.
    public static let coverage = (latitude: 59.2...70.6, longitude: 18.6...32.2)

    /// How long a degraded answer (stale, a neighbour's) is reused for the same point before the own cell is
    /// tried again; also its `Cache-Control: max-age`.
    static let provisionalSeconds = 60

    private let observations: ObservationService
    private let forecasts: ForecastService
    private let places: PlaceResolver
    private let warnings: WarningsService
    /// Ready answers by what they are for and were made from (``WeatherAnswerKey``); the forecasts are the engine's.
    private let answers: AnswerCache<WeatherAnswerKey>
    private let timeZone = TimeZone(identifier: "Europe/Helsinki") ?? .current
    private let maxAge: Int
    private let localDate: LocalDate
    private let served: [ForecastService.Provenance: Counter]
    /// `served[.own]`, looked up once: a provenance hashes as its raw `String`, and a cached answer counts one.
    private let servedOwn: Counter?

    /// - Parameter answerBytes: what the ready answers may take (half of `PIER_WEATHER_CACHE_MB`).
    public init(
        observations: ObservationService, forecasts: ForecastService, places: PlaceResolver, warnings: WarningsService, maxAge: Int = 300,
        answerBytes: Int = WeatherFeature.Settings.defaultCacheBytes / 2, metrics: MetricsRegistry? = nil
    ) {
        self.observations = observations
        self.warnings = warnings
        self.forecasts = forecasts
        self.places = places
        self.maxAge = maxAge
        let answers = AnswerCache<WeatherAnswerKey>(entries: Self.maximumAnswers, bytes: answerBytes)
        self.answers = answers
        localDate = LocalDate(timeZone: timeZone)
        var served: [ForecastService.Provenance: Counter] = [:]
        for provenance in ForecastService.Provenance.allCases {
            served[provenance] = metrics?.counter(
                "pier_weather_answers_total", help: "/v1/weather answers by where their forecast came from.",
                labels: [("provenance", provenance.rawValue)])
        }
        self.served = served
        servedOwn = served[.own]
        if let metrics {
            metrics.gauge("pier_weather_cache_bytes", help: "Bytes of forecasts (with their encodings) and weather answers held in memory.") {
                Double(Self.cache(forecasts, answers).bytes)
            }
            metrics.gauge("pier_weather_cache_budget_bytes", help: "PIER_WEATHER_CACHE_MB in bytes.") { Double(Self.cache(forecasts, answers).budgetBytes) }
            metrics.gauge("pier_weather_cache_entries", help: "Forecasts and answers held in memory.") { Double(Self.cache(forecasts, answers).entries) }
        }
    }

    /// Ready answers at most: a place's answer takes 10–20 KB, so the bytes bound first unless the budget is raised.
    static let maximumAnswers = 65_536

    /// Weather's memory, forecasts and ready answers (`/health`'s `forecast_cache`, the `pier_weather_cache_*` gauges).
    var cache: ForecastService.CacheFigures { Self.cache(forecasts, answers) }

    private static func cache(_ forecasts: ForecastService, _ answers: AnswerCache<WeatherAnswerKey>) -> ForecastService.CacheFigures {
        let held = forecasts.memory
        return ForecastService.CacheFigures(
            bytes: held.bytes + answers.bytes, budgetBytes: held.budgetBytes + answers.budgetBytes, entries: held.forecasts + answers.count,
            forecasts: held.forecasts, evictions: held.evictions)
    }

    public func register(in router: inout Router) {
        router.hybrid(.get, Self.path) { [self] request in
            let language = try WarningRoutes.language(in: request)
            let name = try Self.place(in: request)
            // A place's answer is kept under the name as asked (normalised, as the resolutions are): found without
            // looking its resolution up first.
            let asked = name.map(PlaceResolver.key)
            if let asked, let ready = answers.answer(for: key(nil, asked: asked, language, now: Date())) {
                servedOwn?.increment()
                return .response(ready.response(for: request))
            }
            // Not `name.map { … } ?? .known(try Self.point(in:), nil)`: Swift 6.3 loses an error thrown inside `??`'s
            // autoclosure (a typed throw underneath), and the request went on with a garbage point.
            let whereabouts: Whereabouts
            if let name {
                whereabouts = try Self.whereabouts(named: name, for: request, places: places)
            } else {
                whereabouts = .known(try Self.point(in: request), nil)
            }
            switch whereabouts {
            case .known(let point, let place):
                if let response = try answerFromMemory(request, point: point, language: language, location: place, asked: asked) {
                    return .response(response)
                }
                return .later { try await answer(request, point: point, language: language, location: place, asked: asked) }
            case .resolving(let resolve):
                return .later {
                    let (point, place, spender) = try await resolve()
                    return try await answer(request, point: point, language: language, location: place, asked: asked, spender: spender)
                }
            }
        }
    }

    /// Where a request asks about: `lat`/`lon`, or a place by name — known when memory holds its resolution, else
    /// to be resolved off the loop (FMI's budget and the client's share, as `/v1/weather` spends them), giving who the
    /// request counts as with the place (asked once, so the forecast that follows spends as the same one).
    enum Whereabouts {
        case known(Coordinate, PlaceResolver.Place?)
        case resolving(@Sendable () async throws -> (Coordinate, PlaceResolver.Place, Spender))
    }

    /// - Parameter anywhere: any valid point (warnings: none outside FMI's areas), not only FMI's coverage (`422`).
    static func whereabouts(of request: HTTPRequest, places: PlaceResolver, anywhere: Bool = false) throws -> Whereabouts {
        guard let name = try place(in: request) else { return .known(anywhere ? try Coordinate(request.query) : try point(in: request), nil) }
        return try whereabouts(named: name, for: request, places: places)
    }

    /// Where the place `name` (normalised) lies: known from memory now, or resolved off the loop on the share of whoever
    /// `request` counts as. An unknown place is `404`, one outside FMI's coverage `422`.
    static func whereabouts(named name: String, for request: HTTPRequest, places: PlaceResolver) throws -> Whereabouts {
        switch places.cached(name) {
        case .found(let place)?:
            return .known(try point(of: place), place)
        case .unknown?:
            throw unknownPlace
        case nil:
            return .resolving {
                let spender = places.spenders.spender(of: request)
                let resolution: PlaceResolver.Resolution
                do { resolution = try await places.resolve(name, client: spender) } catch let unavailable as ForecastService.Unavailable {
                    throw unavailable.httpError()
                }
                guard case .found(let place) = resolution else { throw unknownPlace }
                return (try point(of: place), place, spender)
            }
        }
    }

    static let unknownPlace = HTTPError(.notFound, "FMI knows no place by that name")

    /// The `place` asked for, normalised; `nil` without one. With `lat` or `lon` too: `400`.
    static func place(in request: HTTPRequest) throws -> String? {
        guard let name = request.query[literal: "place"] else { return nil }
        guard !request.query.contains(literal: "lat"), !request.query.contains(literal: "lon") else {
            throw HTTPError(.badRequest, "give either lat and lon or place, not both")
        }
        return try QueryText.normalised(name, parameter: "place", maximumLength: 100, example: "a place's name, e.g. place=Kumpula")
    }

    /// A resolved place's position, within FMI's coverage (else `422`).
    static func point(of place: PlaceResolver.Place) throws -> Coordinate {
        guard let point = Coordinate(latitude: place.latitude, longitude: place.longitude),
            coverage.latitude.contains(point.latitude), coverage.longitude.contains(point.longitude)
        else {
            throw HTTPError(.unprocessableContent, "the place lies outside the area FMI covers with observations (Finland)")
        }
        return point
    }

    /// The cache-hit path, on the event loop: bad input, a point answered before whose answer still holds, and
    /// a point whose own cell's forecast is fresh in memory are answered here; `nil` sends the request to
    /// ``answer(_:)``, which may wait for PostgreSQL or FMI.
    ///
    /// A point's own answer holds while its forecast is fresh (its deadline), so a hit is one lookup and reads no
    /// forecast: no newer forecast for a cell is taken while the one held is fresh. A degraded answer (stale, a
    /// neighbour's) holds for its minute unless the own cell has a fresh forecast by now.
    /// - Parameter asked: a place's name as asked (``PlaceResolver/key(_:)``), which its answer is kept under.
    func answerFromMemory(
        _ request: HTTPRequest, point: Coordinate, language: WarningLanguage = .en, location: PlaceResolver.Place? = nil, asked: String? = nil
    ) throws -> HTTPResponse? {
        let now = Date()
        var key = key(point, asked: asked, language, now: now)
        if let ready = answers.answer(for: key, now: now) {
            servedOwn?.increment()
            return ready.response(for: request)
        }
        let cell = GridCell(latitude: point.latitude, longitude: point.longitude)
        guard let forecast = forecasts.cachedForecast(for: cell, now: now) else {
            // No fresh forecast of its own: a stand-in's answer, for its minute.
            for provenance in Self.standIns {
                key.provenance = provenance
                if let ready = answers.answer(for: key, now: now) {
                    served[provenance]?.increment()
                    return ready.response(for: request)
                }
            }
            return nil
        }
        guard let list = warnings.cachedWarnings(at: point, language: language, now: now) else { return nil }
        return try respond(
            to: request, point: point, nearest: nearestStation(to: point, now: now), answer: ForecastService.Answer(forecast: forecast, provenance: .own),
            warnings: list, language: language, location: location, asked: asked, now: now)
    }

    /// Where an answer's forecast comes from when the own cell has none fresh.
    private static let standIns = ForecastService.Provenance.allCases.filter { $0 != .own && $0 != .unavailable }

    /// The key of a point's own answer in a language at `now` — of a place's, asked by name, its name instead.
    private func key(_ point: Coordinate?, asked: String?, _ language: WarningLanguage, now: Date) -> WeatherAnswerKey {
        WeatherAnswerKey(
            point: asked == nil ? point : nil, language: language, place: asked, stations: observations.stations.generation,
            warnings: warnings.generation, warningsStale: warnings.isStale(now: now), provenance: .own)
    }

    func answer(
        _ request: HTTPRequest, point: Coordinate, language: WarningLanguage = .en, location: PlaceResolver.Place? = nil, asked: String? = nil,
        spender: Spender? = nil
    ) async throws -> HTTPResponse {
        let now = Date()
        let nearest = try nearestStation(to: point, now: now)
        let list = try await warnings.warnings(at: point, language: language, now: now)
        let answer: ForecastService.Answer
        do {
            // A hit does not work out who asks (an address, a token): only a request that may spend needs to.
            if let hit = forecasts.cachedAnswer(at: point, now: now) {
                answer = hit
            } else {
                answer = try await forecasts.forecast(at: point, client: spender ?? places.spenders.spender(of: request), now: now)
            }
        } catch let unavailable as ForecastService.Unavailable {
            served[.unavailable]?.increment()
            throw unavailable.httpError()
        }
        return try respond(
            to: request, point: point, nearest: nearest, answer: answer, warnings: list, language: language, location: location, asked: asked, now: now)
    }

    private func nearestStation(to point: Coordinate, now: Date) throws -> (station: StationObservation, kilometres: Double) {
        guard let nearest = observations.stations.nearest(
            latitude: point.latitude, longitude: point.longitude, now: now, maximumAge: ObservationService.maximumObservationAge)
        else {
            throw HTTPError(.serviceUnavailable, "no weather station has reported in the last 3 hours", headers: ["Retry-After": "60"])
        }
        return nearest
    }

    /// Builds (or reuses) the body for this point: it changes only with the station's data, the forecast used
    /// and the local date, so repeated requests for one place cost a lookup. A degraded answer is kept for
    /// ``provisionalSeconds`` only, so that the point's own cell is tried again soon.
    private func respond(
        to request: HTTPRequest, point: Coordinate, nearest: (station: StationObservation, kilometres: Double),
        answer: ForecastService.Answer, warnings list: WarningList, language: WarningLanguage, location: PlaceResolver.Place?, asked: String?,
        now: Date
    ) throws -> HTTPResponse {
        served[answer.provenance]?.increment()
        var key = key(point, asked: asked, language, now: now)
        // The warnings as this answer shows them (the list may be newer than the generation just read).
        key.warnings = list.generation
        key.provenance = answer.provenance
        if let ready = answers.answer(for: key, now: now) { return ready.response(for: request) }
        let response = WeatherResponse(station: nearest.station, kilometres: nearest.kilometres)
        let today = localDate.today(now)
        guard let parts = try? answer.forecast.encoded(today: today.date, now: now, timeZone: timeZone),
            let body = try? response.body(
                dailyForecast: parts.daily, hourlyForecast: parts.hourly, source: answer.forecast.source, warnings: list.json, location: location)
        else {
            throw HTTPError(.internalServerError, "the weather answer could not be encoded")
        }
        let degraded = answer.provenance != .own
        var headers: HTTPHeaders = ["Cache-Control": "public, max-age=\(degraded ? min(maxAge, Self.provisionalSeconds) : maxAge)"]
        if answer.stale { headers.markStale("forecast") }
        if key.warningsStale { headers.markStale(WarningsService.source) }
        if let kilometres = answer.kilometres {
            headers.add("X-Pier-Forecast-Distance-Km", String(format: "%.1f", kilometres))
        }
        let cached = CachedResponse(json: body, headers: headers)
        // The station stops counting 3 hours after its observation, even if no new index replaces it; the forecast's
        // parts start at this whole hour and this local date; the own cell's forecast answers while it is fresh.
        var until = nearest.station.observedAt.addingTimeInterval(ObservationService.maximumObservationAge)
        if degraded { until = min(until, now.addingTimeInterval(TimeInterval(Self.provisionalSeconds))) }
        if answer.provenance == .own { until = min(until, forecasts.freshUntil(fetchedAt: answer.forecast.fetchedAt)) }
        until = min(until, list.until, today.until, FMITime.wholeHour(now).addingTimeInterval(3600))
        answers.keep(cached, for: key, until: until, keyBytes: key.heapBytes)
        return cached.response(for: request)
    }

    /// Validated coordinates: `400` for bad input, `422` outside FMI's coverage.
    static func point(in request: HTTPRequest) throws -> Coordinate {
        let point = try Coordinate(request.query)
        guard coverage.latitude.contains(point.latitude), coverage.longitude.contains(point.longitude) else {
            throw HTTPError(
                .unprocessableContent,
                "lat=\(point.latitude), lon=\(point.longitude) is outside the area FMI covers (Finland: lat \(coverage.latitude.lowerBound)–\(coverage.latitude.upperBound), lon \(coverage.longitude.lowerBound)–\(coverage.longitude.upperBound))")
        }
        return point
    }
}
