import Fetching
import Foundation
import HTTPServer

/// `GET /v1/weather?lat=..&lon=..`: the nearest station's latest observation and the point's daily forecast.
public struct WeatherRoutes: Sendable {
    public static let path = "/v1/weather"
    /// Where FMI has stations: its "whole Finland" box with half a degree of margin.
    public static let coverage = (latitude: 59.2...70.6, longitude: 18.6...32.2)

    private let observations: ObservationService
    private let forecasts: ForecastService
    private let timeZone = TimeZone(identifier: "Europe/Helsinki") ?? .current
    private let maxAge: Int

    public init(observations: ObservationService, forecasts: ForecastService, maxAge: Int = 300) {
        self.observations = observations
        self.forecasts = forecasts
        self.maxAge = maxAge
    }

    public func register(in router: inout Router) {
        router.on(.get, Self.path) { [self] request async throws in try await answer(request) }
        CORS.registerPreflight(in: &router, path: Self.path, methods: [.get])
    }

    func answer(_ request: HTTPRequest) async throws -> HTTPResponse {
        let latitude = try Self.coordinate("lat", in: request, range: -90...90)
        let longitude = try Self.coordinate("lon", in: request, range: -180...180)
        guard Self.coverage.latitude.contains(latitude), Self.coverage.longitude.contains(longitude) else {
            throw HTTPError(
                .unprocessableContent,
                "lat=\(latitude), lon=\(longitude) is outside the area FMI covers (Finland: lat \(Self.coverage.latitude.lowerBound)–\(Self.coverage.latitude.upperBound), lon \(Self.coverage.longitude.lowerBound)–\(Self.coverage.longitude.upperBound))",
                headers: CORS.headers())
        }
        let now = Date()
        guard let nearest = observations.stations.nearest(
            latitude: latitude, longitude: longitude, now: now, maximumAge: ObservationService.maximumObservationAge)
        else {
            throw HTTPError(
                .serviceUnavailable, "no weather station has reported in the last 3 hours",
                headers: CORS.headers(("Retry-After", "60")))
        }
        let cell = GridCell(latitude: latitude, longitude: longitude)
        let answer: ForecastService.Answer
        if let cached = forecasts.cachedForecast(for: cell, now: now) {
            answer = ForecastService.Answer(forecast: cached, stale: false)
        } else {
            do {
                answer = try await forecasts.forecast(for: cell, now: now)
            } catch {
                throw HTTPError(.serviceUnavailable, "no forecast available for this point: \(error)", headers: CORS.headers(("Retry-After", "60")))
            }
        }
        let response = WeatherResponse(station: nearest.station, kilometres: nearest.kilometres, forecast: answer.forecast, now: now, timeZone: timeZone)
        var headers = CORS.headers(("Cache-Control", "public, max-age=\(answer.stale ? 60 : maxAge)"))
        if answer.stale {
            headers.add("X-Pier-Stale", "forecast")
            headers.add("Warning", "110 - \"Response is Stale\"")
        }
        guard let body = try? JSONBody.encode(response) else {
            throw HTTPError(.internalServerError, "the weather answer could not be encoded")
        }
        return CachedResponse(json: body, headers: headers).response(for: request)
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
