import FMIFormat
import Foundation
import Parsing
import Scheduling
import UpstreamHTTP

/// Builds FMI WFS requests and fetches and parses their answers.
public struct FMIClient: Sendable {
    public static let defaultURL = "https://opendata.fmi.fi/wfs"
    public static let defaultForecastQuery = "fmi::forecast::edited::weather::scandinavia::point::timevaluepair"
    /// FMI's own "Whole Finland" box (lon,lat,lon,lat).
    public static let finland = (minLongitude: 19.1, minLatitude: 59.7, maxLongitude: 31.7, maxLatitude: 70.1)
    /// What `/v1/weather` shows of each hour; the gust and the feels-like temperature are the edited forecast's own.
    static let forecastParameters = "Temperature,WindSpeedMS,WindDirection,HourlyMaximumGust,Humidity,Pressure,Precipitation1h,WeatherSymbol3,FeelsLike"
    /// The forecast asked: from the current whole hour, ten days (the edited forecast's length).
    static let forecastHours = 240

    private let baseURL: String
    private let forecastQuery: String
    private let client: UpstreamClient

    public init(baseURL: String = Self.defaultURL, forecastQuery: String = Self.defaultForecastQuery, client: UpstreamClient) {
        self.baseURL = baseURL
        self.forecastQuery = forecastQuery
        self.client = client
    }

    /// All Finnish stations' last hour in one call, on whole 10 minutes (FMI counts steps from the hour).
    public func observationsURL(now: Date) -> String {
        let end = Date(timeIntervalSince1970: (now.timeIntervalSince1970 / 600).rounded(.down) * 600)
        let start = end.addingTimeInterval(-3600)
        let box = Self.finland
        return url(
            query: "fmi::observations::weather::timevaluepair",
            "bbox=\(box.minLongitude),\(box.minLatitude),\(box.maxLongitude),\(box.maxLatitude)",
            "starttime=\(Timestamp.iso8601(start))", "endtime=\(Timestamp.iso8601(end))", "timestep=10",
            "parameters=" + ObservationParameter.allCases.map(\.rawValue).joined(separator: ","))
    }

    /// The hourly point forecast at a cell's centre (`latlon` is lat,lon), from the current whole hour for ten days:
    /// without a window FMI starts at the next hour and stops after three days.
    public func forecastURL(for cell: GridCell, now: Date = Date()) -> String {
        forecastURL(String(format: "latlon=%.4f,%.4f", cell.latitude, cell.longitude), now: now)
    }

    /// The same for a place FMI resolves by name (`place=`).
    func forecastURL(place: String, now: Date = Date()) -> String {
        forecastURL("place=" + URLEncoding.queryValue(place), now: now)
    }

    private func forecastURL(_ location: String, now: Date) -> String {
        let start = FMITime.wholeHour(now)
        return url(
            query: forecastQuery, location,
            "starttime=\(Timestamp.iso8601(start))", "endtime=\(Timestamp.iso8601(start.addingTimeInterval(Double(Self.forecastHours) * 3600)))",
            "timestep=60", "parameters=\(Self.forecastParameters)")
    }

    public func observations(now: Date) async throws -> [FMISeries] {
        try await fetch(observationsURL(now: now))
    }

    public func forecast(for cell: GridCell) async throws -> [FMISeries] {
        try await fetch(forecastURL(for: cell))
    }

    /// The forecast for a place FMI resolves by name (`place=`; its location is the place's name and position).
    public func forecast(place: String, now: Date = Date()) async throws -> [FMISeries] {
        try await fetch(forecastURL(place: place, now: now))
    }

    /// FMI answers errors as an ExceptionReport, with status 400 or even 200: the body decides.
    private func fetch(_ url: String) async throws -> [FMISeries] {
        let body = try await client.get(url, headers: ["Accept": "application/xml"], accepting: [400]).body
        do {
            return try FMIDocumentParser.parse(body)
        } catch let .unreadable(error) {
            throw FetchError.unreadable("\(error)", url: url)
        }
    }

    private func url(query: String, _ parameters: String...) -> String {
        let separator = baseURL.contains("?") ? "&" : "?"
        let encodedQuery = query.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? query
        return baseURL + separator + "service=WFS&version=2.0.0&request=getFeature&storedquery_id=\(encodedQuery)&"
            + parameters.joined(separator: "&")
    }
}
