import Foundation
import HTTPServer
import ReplayMatching

/// FMI's WFS: the all-stations observations or a point forecast (by `storedquery_id`), moved to now. A forecast asked
/// by `place=` is the edited forecast with the place's name and position (``FixtureUpstream/fmiPlaces``); a place it
/// does not know gets FMI's "No locations found" exception report (HTTP 400).
struct FMIDouble: UpstreamDouble {
    let upstream = FixtureUpstream.Upstream.fmi
    let paths = ["/wfs"]
    func settings(of server: FixtureUpstream) -> [String: String] { ["PIER_FMI_URL": server.fmiURL] }
    let unlimited = ["PIER_FMI_REQUESTS_PER_MINUTE": "100000", "PIER_FMI_BURST": "100000", "PIER_FORECAST_NEIGHBOUR_KM": "0"]
    private let observations: [UInt8]
    private let forecast: [UInt8]
    private let edited: [UInt8]
    private let exception: [UInt8]
    private let noLocations: [UInt8]

    init() throws {
        observations = try Fixtures.bytes("fmi", "observations.xml")
        forecast = try Fixtures.bytes("fmi", "forecast-point.xml")
        edited = try Fixtures.bytes("fmi", "edited-point-latlon.xml")
        exception = try Fixtures.bytes("fmi/real", "extra-exception-no-data.xml")
        noLocations = try Fixtures.bytes("fmi/real", "extra-exception-no-locations.xml")
    }

    func answer(_ request: FixtureUpstream.Request) -> HTTPResponse {
        if let place = request.query["place"] {
            guard let known = FixtureUpstream.fmiPlaces[place.lowercased()] else {
                return HTTPResponse(status: .badRequest, headers: ["Content-Type": "text/xml; charset=UTF-8"], body: noLocations)
            }
            let text = String(decoding: edited, as: UTF8.self)
                .replacingOccurrences(of: ">Helsinki</gml:name>", with: ">\(known.name)</gml:name>")
                .replacingOccurrences(of: "60.17000 24.94000 ", with: String(format: "%.5f %.5f ", known.latitude, known.longitude))
            return HTTPResponse(headers: ["Content-Type": "text/xml; charset=UTF-8"], body: FixtureUpstream.movedToNow(Array(text.utf8)))
        }
        let document = (request.query["storedquery_id"] ?? "").contains("observations") ? observations : forecast
        return HTTPResponse(headers: ["Content-Type": "text/xml; charset=UTF-8"], body: FixtureUpstream.movedToNow(document))
    }

    func answer(_ request: FixtureUpstream.Request, variant: String) -> HTTPResponse? {
        switch variant {
        case "exception":
            return HTTPResponse(status: .badRequest, headers: ["Content-Type": "text/xml; charset=UTF-8"], body: exception)
        case "edited" where !(request.query["storedquery_id"] ?? "").contains("observations"):
            return HTTPResponse(headers: ["Content-Type": "text/xml; charset=UTF-8"], body: FixtureUpstream.movedToNow(edited))
        case "edited":
            return answer(request)
        default:
            return nil
        }
    }
}

extension FixtureUpstream.Upstream {
    public static let fmi = Self("fmi")
}

extension FixtureUpstream.Mode {
    /// An `ows:ExceptionReport` with status 400 (FMI's way of refusing a request).
    public static let exception = Self.variant("exception")
    /// The edited forecast with every parameter `/v1/weather` asks for (`HourlyMaximumGust`, `FeelsLike`, …).
    public static let editedForecast = Self.variant("edited")
}

extension FixtureUpstream {
    public var fmiURL: String { baseURL + "/wfs" }

    /// The places the FMI double resolves (`place=`, any case): FMI's official name and the place's position.
    public static let fmiPlaces: [String: (name: String, latitude: Double, longitude: Double)] = [
        "kumpula": ("Kumpula", 60.20307, 24.96131), "helsinki": ("Helsinki", 60.16952, 24.93545),
    ]

    /// The fixture documents end (observations) or start (forecast) at 2026-11-23T06:00:00Z; every timestamp in
    /// them is moved by the same amount so that this happens at the start of the current hour.
    static func movedToNow(_ document: [UInt8], now: Date = Date()) -> [UInt8] {
        TimeShift.shift(document, by: TimeShift.hours(from: Date(timeIntervalSince1970: 1_795_413_600), to: now))  // 2026-11-23T06:00:00Z
    }
}
