import Basics
import Parsing

/// A cruise read from a booking confirmation, as ShipTrip decodes it (`ExtractedCruiseData`): every member optional but
/// a port's name, dates `YYYY-MM-DD`, times `HH:MM`, a sea day a port with `isSeaDay`. Read from the model's JSON and
/// checked — real dates, the end not before the start, times of a day, at most ``maximumPorts`` ports, bounded
/// strings — and repaired in nothing: an answer that fails is the model's error, said with its reason.
public struct ExtractedCruise: Equatable, Sendable {
    public struct Port: Equatable, Sendable {
        public var name: String
        public var country: String?
        public var arrivalDate: String?
        public var arrivalTime: String?
        public var departureDate: String?
        public var departureTime: String?
        public var isSeaDay: Bool?
        /// Where the port lies, when Pier's geocoder knows it (not the model's: it is never asked): members the app's
        /// `ExtractedCruiseData` ignores, written `null` when unknown.
        public var latitude: Double?
        public var longitude: Double?

        public init(
            name: String, country: String? = nil, arrivalDate: String? = nil, arrivalTime: String? = nil, departureDate: String? = nil,
            departureTime: String? = nil, isSeaDay: Bool? = nil
        ) {
            self.name = name
            self.country = country
            self.arrivalDate = arrivalDate
            self.arrivalTime = arrivalTime
            self.departureDate = departureDate
            self.departureTime = departureTime
            self.isSeaDay = isSeaDay
        }
    }

    public var title: String?
    public var shippingLine: String?
    public var ship: String?
    public var startDate: String?
    public var endDate: String?
    public var cabinType: String?
    public var cabinNumber: String?
    public var bookingNumber: String?
    public var ports: [Port]

    /// A cruise has at most this many ports (a world cruise of 120 days calls at about 60).
    public static let maximumPorts = 100
    /// A string member has at most this many characters.
    public static let maximumCharacters = 200

    /// Why the model's answer is not a cruise (a `502` names it): `reason` for the one who sent the text, with the value
    /// that failed (at most 20 characters of it); `state` without it, for the logs — the model's value came from a user's
    /// booking.
    public struct Invalid: Error, Equatable, Sendable, CustomStringConvertible {
        public var state: String
        public var value: String?

        public init(reason: String, value: String? = nil) {
            state = reason
            self.value = value.map { String($0.prefix(20)) }
        }

        public var reason: String { value.map { "\(state): \($0)" } ?? state }
        public var description: String { reason }
    }

    /// The members ShipTrip decodes, in its order.
    static let members = ["title", "shippingLine", "ship", "startDate", "endDate", "cabinType", "cabinNumber", "bookingNumber"]
    static let portMembers = ["name", "country", "arrivalDate", "arrivalTime", "departureDate", "departureTime", "isSeaDay"]

    /// The cruise in the model's JSON text (what ``GeminiAnswer/text(_:tokens:)`` carried), checked.
    public init(modelJSON text: String) throws(Invalid) {
        let bytes = Array(text.utf8)
        let root: JSONNode
        do { root = try JSONScanner.parse(bytes) } catch { throw Invalid(reason: "the model's answer is not JSON (\(error.description))") }
        guard root.isObject else { throw Invalid(reason: "the model's answer is not an object") }
        func string(_ node: JSONNode?, _ name: String) throws(Invalid) -> String? {
            guard let node, !node.isNull else { return nil }
            guard let value = node.string else { throw Invalid(reason: "\(name) is not a string") }
            guard value.unicodeScalars.count <= Self.maximumCharacters else { throw Invalid(reason: "\(name) is longer than \(Self.maximumCharacters) characters") }
            let trimmed = value.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed()
            return trimmed.isEmpty ? nil : String(trimmed)
        }
        func date(_ node: JSONNode?, _ name: String) throws(Invalid) -> String? {
            guard let value = try string(node, name) else { return nil }
            guard CalendarDate(value) != nil else { throw Invalid(reason: "\(name) is not a date (YYYY-MM-DD)", value: value) }
            return value
        }
        func time(_ node: JSONNode?, _ name: String) throws(Invalid) -> String? {
            guard let value = try string(node, name) else { return nil }
            let digits = Array(value.utf8)
            let isDigit = { (byte: UInt8) in byte >= 0x30 && byte <= 0x39 }
            guard digits.count == 5, digits[2] == UInt8(ascii: ":"), isDigit(digits[0]), isDigit(digits[1]), isDigit(digits[3]), isDigit(digits[4]),
                let hour = Int(value.prefix(2)), let minute = Int(value.suffix(2)), hour < 24, minute < 60
            else { throw Invalid(reason: "\(name) is not a time (HH:MM)", value: value) }
            return value
        }
        title = try string(root["title"], "title")
        shippingLine = try string(root["shippingLine"], "shippingLine")
        ship = try string(root["ship"], "ship")
        startDate = try date(root["startDate"], "startDate")
        endDate = try date(root["endDate"], "endDate")
        cabinType = try string(root["cabinType"], "cabinType")
        cabinNumber = try string(root["cabinNumber"], "cabinNumber")
        bookingNumber = try string(root["bookingNumber"], "bookingNumber")
        if let start = startDate.flatMap(CalendarDate.init), let end = endDate.flatMap(CalendarDate.init), end < start {
            throw Invalid(reason: "endDate is before startDate")
        }
        var ports: [Port] = []
        if let list = root["ports"], !list.isNull {
            guard let elements = list.elements else { throw Invalid(reason: "ports is not an array") }
            guard elements.count <= Self.maximumPorts else { throw Invalid(reason: "more than \(Self.maximumPorts) ports") }
            for (index, element) in elements.enumerated() {
                let at = "ports[\(index)]"
                guard element.isObject else { throw Invalid(reason: "\(at) is not an object") }
                guard let name = try string(element["name"], "\(at).name") else { throw Invalid(reason: "\(at) has no name") }
                var seaDay: Bool?
                if let flag = element["isSeaDay"], !flag.isNull {
                    guard case .bool(let value) = flag.kind else { throw Invalid(reason: "\(at).isSeaDay is not a boolean") }
                    seaDay = value
                }
                ports.append(Port(
                    name: name, country: try string(element["country"], "\(at).country"),
                    arrivalDate: try date(element["arrivalDate"], "\(at).arrivalDate"), arrivalTime: try time(element["arrivalTime"], "\(at).arrivalTime"),
                    departureDate: try date(element["departureDate"], "\(at).departureDate"),
                    departureTime: try time(element["departureTime"], "\(at).departureTime"), isSeaDay: seaDay))
            }
        }
        self.ports = ports
    }

    /// Nothing read: every member unknown and no port (the instructions' answer to a text that is no cruise booking).
    public var isEmpty: Bool {
        ports.isEmpty && [title, shippingLine, ship, startDate, endDate, cabinType, cabinNumber, bookingNumber].allSatisfy { $0 == nil }
    }

    /// ShipTrip's `ExtractedCruiseData` as JSON: every member present, `null` where unknown; each port's `latitude` and
    /// `longitude` after its members.
    public var json: String {
        let values = [title, shippingLine, ship, startDate, endDate, cabinType, cabinNumber, bookingNumber]
        return JSONWriter.text { json in
            json.object { json in
                for (name, value) in zip(Self.members, values) { json.member(name, value) }
                json.member("ports", array: { json in
                    for port in ports {
                        json.object { json in
                            let texts = [port.name, port.country, port.arrivalDate, port.arrivalTime, port.departureDate, port.departureTime]
                            for (name, value) in zip(Self.portMembers, texts) { json.member(name, value) }
                            json.key(Self.portMembers[texts.count])
                            if let flag = port.isSeaDay { json.bool(flag) } else { json.null() }
                            for (name, value) in [("latitude", port.latitude), ("longitude", port.longitude)] {
                                json.key(name)
                                // As Swift describes them (`47.0`): the app's numbers as they always came.
                                if let value { json.number(described: value) } else { json.null() }
                            }
                        }
                    }
                })
            }
        }
    }
}
