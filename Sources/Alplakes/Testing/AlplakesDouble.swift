import Foundation
import HTTPServer
import ReplayMatching

/// Alplakes' 1D simulations: a lake's profile or surface series, moved so that the profile's model step is the
/// current 3-hour step (the series then runs from the next step for 48 hours); an unknown lake is the upstream's
/// `400`.
struct AlplakesDouble: UpstreamDouble {
    let upstream = FixtureUpstream.Upstream.alplakes
    let paths = ["/simulations/1d/profile/simstrat/{lake}/{time}", "/simulations/1d/point/simstrat/{lake}/{start}/{end}/{depth}"]
    func settings(of server: FixtureUpstream) -> [String: String] {
        ["PIER_ALPLAKES_URL": server.alplakesURL, "PIER_ALPLAKES_LAKES": FixtureUpstream.alplakesLakes.joined(separator: ","), "PIER_ALPLAKES_PAUSE_S": "0"]
    }
    /// Per lake: the profile, its model time (epoch seconds) and the surface series.
    private let lakes: [String: (profile: [UInt8], time: Int, point: [UInt8])]

    init() throws {
        var lakes: [String: (profile: [UInt8], time: Int, point: [UInt8])] = [:]
        for lake in FixtureUpstream.alplakesLakes {
            let profile = try Fixtures.bytes("alplakes", "profile-\(lake).json")
            lakes[lake] = (profile, FixtureUpstream.profileTime(profile), try Fixtures.bytes("alplakes", "point-\(lake).json"))
        }
        self.lakes = lakes
    }

    func answer(_ request: FixtureUpstream.Request) -> HTTPResponse {
        let parts = request.path.split(separator: "/")
        guard parts.count >= 6, let lake = lakes[String(parts[4])] else {
            let name = parts.count > 4 ? String(parts[4]) : ""
            return Self.json(
                Array(#"{"detail":"simstrat simulation results are not available for \#(name) please select from: [...]"}"#.utf8), status: .badRequest)
        }
        let body = parts[2] == "profile" ? lake.profile : lake.point
        return Self.json(TimeShift.shift(seconds: FixtureUpstream.alplakesShift(lake.time), inForecastJSON: body))
    }
}

extension FixtureUpstream.Upstream {
    public static let alplakes = Self("alplakes")
}

extension FixtureUpstream {
    public var alplakesURL: String { baseURL }

    /// The lakes the Alplakes fixtures hold; any other is the upstream's `400`.
    public static let alplakesLakes = ["upperzurich", "geneva", "lucernealpnachersee"]

    /// Seconds the fixtures of a lake whose profile is at `time` are moved by (whole 3-hour steps).
    public static func alplakesShift(_ time: Int, now: Date = Date()) -> Int {
        let step = Int(now.timeIntervalSince1970) / 10_800 * 10_800
        return step - time
    }

    /// The model time of a profile fixture (`"time": "2026-07-04T12:00:00+00:00"`).
    static func profileTime(_ body: [UInt8]) -> Int {
        let text = String(decoding: body, as: UTF8.self)
        guard let range = text.range(of: #""time": ?"[0-9T:-]{19}"#, options: .regularExpression) else { return 0 }
        let stamp = String(text[range].suffix(19)) + "Z"
        return Int((try? Date(stamp, strategy: .iso8601))?.timeIntervalSince1970 ?? 0)
    }
}
