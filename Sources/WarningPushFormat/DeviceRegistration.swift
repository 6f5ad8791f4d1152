import APNsFormat
import Geography
import HTTPServer
import Parsing
import WarningsFormat

/// What an app registers for warnings: its APNs token, the places it saved (at most ten), the least severity worth a
/// push, its language and whether it wants an all-clear. Read from the request's JSON with every refusal saying
/// which member is wrong (never echoing what was sent: a token or a place is not repeated in an error).
public struct DeviceRegistration: Sendable, Equatable {
    public static let maximumPlaces = 10
    public static let maximumBodyBytes = 8 * 1024

    public var token: String
    public var environment: APNsEnvironment
    public var language: WarningLanguage
    /// Rounded to two decimals (about a kilometre, less across in the north): what is stored and shown.
    public var places: [Coordinate]
    /// Places saved by name (`{"place": "Kumpula"}`, normalised), resolved to FMI's point for them before anything is
    /// stored (``resolved(_:)``): only the point is kept.
    public var placeNames: [String] = []
    public var minimumSeverity: CAPSeverity
    public var allClear: Bool

    public enum Problem: Error, Equatable, CustomStringConvertible {
        case notJSON
        case member(String, expected: String)

        public var description: String {
            switch self {
            case .notJSON: "the body must be a JSON object (at most \(DeviceRegistration.maximumBodyBytes) bytes)"
            case .member(let name, let expected): "\(name): expected \(expected)"
            }
        }
    }

    /// The severities a device may ask for (a minor, green warning is never pushed).
    static let severities: [String: CAPSeverity] = ["moderate": .moderate, "severe": .severe, "extreme": .extreme]

    public init(
        token: String, environment: APNsEnvironment, language: WarningLanguage, places: [Coordinate], minimumSeverity: CAPSeverity,
        allClear: Bool
    ) {
        self.token = token
        self.environment = environment
        self.language = language
        self.places = places
        self.minimumSeverity = minimumSeverity
        self.allClear = allClear
    }

    /// `{"token", "environment", "language"?, "places", "min_severity"?, "all_clear"?}`.
    public init(json body: [UInt8]) throws(Problem) {
        guard body.count <= Self.maximumBodyBytes, let object = try? JSONScanner.parse(body), object.isObject else { throw .notJSON }
        guard let token = object["token"]?.string, APNsNotification.isDeviceToken(token) else {
            throw .member("token", expected: "the APNs device token in hex (16 to 200 hex digits)")
        }
        guard let environmentName = object["environment"]?.string, let environment = APNsEnvironment(rawValue: environmentName) else {
            throw .member("environment", expected: "\"production\" (App Store, TestFlight) or \"development\" (run from Xcode)")
        }
        var language = WarningLanguage.fi
        if let member = object["language"] {
            guard let name = member.string, let known = WarningLanguage(rawValue: name) else { throw .member("language", expected: "\"fi\", \"sv\" or \"en\"") }
            language = known
        }
        guard let list = object["places"]?.elements, !list.isEmpty, list.count <= Self.maximumPlaces else {
            throw .member("places", expected: "an array of 1 to \(Self.maximumPlaces) places, each {\"lat\": …, \"lon\": …} or {\"place\": …}")
        }
        var places: [Coordinate] = []
        var names: [String] = []
        for (index, place) in list.enumerated() {
            let member = "places[\(index)]"
            guard case .object(let members) = place.kind, members.allSatisfy({ ["lat", "lon", "place"].contains($0.key) }) else {
                throw .member(member, expected: "{\"lat\": …, \"lon\": …} or {\"place\": \"<a place FMI names>\"} and nothing else")
            }
            if let named = place["place"] {
                guard members.count == 1, let text = named.string,
                    let name = try? QueryText.normalised(text, parameter: member, maximumLength: Self.maximumNameLength, example: "")
                else { throw .member(member, expected: "{\"place\": a place's name, 1 to \(Self.maximumNameLength) characters} alone") }
                if !names.contains(name) { names.append(name) }
                continue
            }
            guard let latitude = place["lat"]?.number(in: body), let longitude = place["lon"]?.number(in: body),
                Self.add(latitude, longitude, to: &places)
            else { throw .member(member, expected: "{\"lat\": -90…90, \"lon\": -180…180}") }
        }
        var minimum = CAPSeverity.moderate
        if let member = object["min_severity"] {
            guard let name = member.string, let severity = Self.severities[name] else {
                throw .member("min_severity", expected: "\"moderate\", \"severe\" or \"extreme\"")
            }
            minimum = severity
        }
        var allClear = false
        if let member = object["all_clear"] {
            guard case .bool(let value) = member.kind else { throw .member("all_clear", expected: "true or false") }
            allClear = value
        }
        self.init(token: token.lowercased(), environment: environment, language: language, places: places, minimumSeverity: minimum, allClear: allClear)
        placeNames = names
    }

    /// A place's name is at most this long (as `/v1/weather?place=` takes it).
    public static let maximumNameLength = 100

    /// The registration with its named places replaced by the points they were resolved to (rounded like every place).
    public func resolved(_ points: [Coordinate]) -> DeviceRegistration {
        var registration = self
        registration.placeNames = []
        for point in points { _ = Self.add(point.latitude, point.longitude, to: &registration.places) }
        return registration
    }

    /// Adds the point rounded (once: two places in one square kilometre are one); `false` when it is no coordinate.
    private static func add(_ latitude: Double, _ longitude: Double, to places: inout [Coordinate]) -> Bool {
        guard let rounded = Coordinate(latitude: rounded(latitude), longitude: rounded(longitude)) else { return false }
        if !places.contains(rounded) { places.append(rounded) }
        return true
    }

    /// Two decimals.
    static func rounded(_ degrees: Double) -> Double {
        (degrees * 100).rounded() / 100
    }
}
