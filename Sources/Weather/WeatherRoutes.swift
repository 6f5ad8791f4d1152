import Fetching
import Foundation
import HTTPServer
import Synchronization

/// `GET /v1/weather?lat=..&lon=..`: the nearest station's latest observation and the point's daily forecast.
public struct WeatherRoutes: Sendable {
    public static let path = "/v1/weather"
    /// Where FMI has stations: its "whole Finland" box with half a degree of margin.
    public static let coverage = (latitude: 59.2...70.6, longitude: 18.6...32.2)

    private let observations: ObservationService
    private let forecasts: ForecastService
    private let timeZone = TimeZone(identifier: "Europe/Helsinki") ?? .current
    private let maxAge: Int
    private let daily = DailyForecastCache()
    private let bodies = BodyCache()
    private let localDate: LocalDate

    public init(observations: ObservationService, forecasts: ForecastService, maxAge: Int = 300) {
        self.observations = observations
        self.forecasts = forecasts
        self.maxAge = maxAge
        localDate = LocalDate(timeZone: timeZone)
    }

    public func register(in router: inout Router) {
        router.on(.get, Self.path, fast: { [self] request in try answerFromMemory(request) }, slow: { [self] request in try await answer(request) })
        CORS.registerPreflight(in: &router, path: Self.path, methods: [.get])
    }

    /// The cache-hit path, on the event loop: bad input, the nearest station and a cell whose forecast is in
    /// memory are answered here; `nil` sends the request to ``answer(_:)``, which may wait for PostgreSQL or FMI.
    func answerFromMemory(_ request: HTTPRequest) throws -> HTTPResponse? {
        let point = try Self.point(in: request)
        let now = Date()
        guard let forecast = forecasts.cachedForecast(for: GridCell(latitude: point.latitude, longitude: point.longitude), now: now) else {
            return nil
        }
        let answer = ForecastService.Answer(forecast: forecast, stale: false)
        let stamp = BodyCache.Stamp(
            stations: observations.stations.generation, fetchedAt: forecast.fetchedAt, today: localDate.today(now), stale: false)
        if let cached = bodies.response(for: Self.key(point), stamp: stamp, now: now) { return cached.response(for: request) }
        return try respond(to: request, point: point, nearest: nearestStation(to: point, now: now), answer: answer, now: now)
    }

    func answer(_ request: HTTPRequest) async throws -> HTTPResponse {
        let point = try Self.point(in: request)
        let now = Date()
        let nearest = try nearestStation(to: point, now: now)
        let answer: ForecastService.Answer
        do {
            answer = try await forecasts.forecast(for: GridCell(latitude: point.latitude, longitude: point.longitude), now: now)
        } catch {
            throw HTTPError(.serviceUnavailable, "no forecast available for this point: \(error)", headers: CORS.headers(("Retry-After", "60")))
        }
        return try respond(to: request, point: point, nearest: nearest, answer: answer, now: now)
    }

    private func nearestStation(to point: (latitude: Double, longitude: Double), now: Date) throws -> (station: StationObservation, kilometres: Double) {
        guard let nearest = observations.stations.nearest(
            latitude: point.latitude, longitude: point.longitude, now: now, maximumAge: ObservationService.maximumObservationAge)
        else {
            throw HTTPError(.serviceUnavailable, "no weather station has reported in the last 3 hours", headers: CORS.headers(("Retry-After", "60")))
        }
        return nearest
    }

    /// Builds (or reuses) the body for this point: it changes only with the station's data, the cell's forecast
    /// and the local date, so repeated requests for one place cost a lookup.
    private func respond(
        to request: HTTPRequest, point: (latitude: Double, longitude: Double), nearest: (station: StationObservation, kilometres: Double),
        answer: ForecastService.Answer, now: Date
    ) throws -> HTTPResponse {
        let today = localDate.today(now)
        let stamp = BodyCache.Stamp(
            stations: observations.stations.generation, fetchedAt: answer.forecast.fetchedAt, today: today, stale: answer.stale)
        let key = Self.key(point)
        if let cached = bodies.response(for: key, stamp: stamp, now: now) { return cached.response(for: request) }
        let response = WeatherResponse(station: nearest.station, kilometres: nearest.kilometres)
        guard let days = try? daily.json(for: answer.forecast, today: today, timeZone: timeZone), let body = try? response.body(dailyForecast: days) else {
            throw HTTPError(.internalServerError, "the weather answer could not be encoded")
        }
        var headers = CORS.headers(("Cache-Control", "public, max-age=\(answer.stale ? 60 : maxAge)"))
        if answer.stale {
            headers.add("X-Pier-Stale", "forecast")
            headers.add("Warning", "110 - \"Response is Stale\"")
        }
        let cached = CachedResponse(json: body, headers: headers)
        // The station stops counting 3 hours after its observation, even if no new index replaces it.
        bodies.store(cached, for: key, stamp: stamp, until: nearest.station.observedAt.addingTimeInterval(ObservationService.maximumObservationAge))
        return cached.response(for: request)
    }

    private static func key(_ point: (latitude: Double, longitude: Double)) -> String {
        "\(point.latitude),\(point.longitude)"
    }

    /// Validated coordinates: `400` for bad input, `422` outside FMI's coverage.
    static func point(in request: HTTPRequest) throws -> (latitude: Double, longitude: Double) {
        let latitude = try coordinate("lat", in: request, range: -90...90)
        let longitude = try coordinate("lon", in: request, range: -180...180)
        guard coverage.latitude.contains(latitude), coverage.longitude.contains(longitude) else {
            throw HTTPError(
                .unprocessableContent,
                "lat=\(latitude), lon=\(longitude) is outside the area FMI covers (Finland: lat \(coverage.latitude.lowerBound)–\(coverage.latitude.upperBound), lon \(coverage.longitude.lowerBound)–\(coverage.longitude.upperBound))",
                headers: CORS.headers())
        }
        return (latitude, longitude)
    }

    /// A coordinate from the query: present, a number, finite and in range, or a `400` that says which.
    static func coordinate(_ name: String, in request: HTTPRequest, range: ClosedRange<Double>) throws -> Double {
        guard let text = request.query[name], !text.isEmpty else {
            throw HTTPError(.badRequest, "\(name) is required (decimal degrees, e.g. lat=60.17&lon=24.94)", headers: CORS.headers())
        }
        guard let value = Double(text) else {
            throw HTTPError(.badRequest, "\(name) must be a number in decimal degrees, not '\(text.prefix(40))'", headers: CORS.headers())
        }
        guard value.isFinite else { throw HTTPError(.badRequest, "\(name) must be a finite number", headers: CORS.headers()) }
        guard range.contains(value) else {
            throw HTTPError(.badRequest, "\(name) must be between \(Int(range.lowerBound)) and \(Int(range.upperBound))", headers: CORS.headers())
        }
        return value
    }
}
