import Parsing

/// An OpenWeather 5-day / 3-hour forecast, checked and kept as the upstream's bytes, with what Pier needs of
/// each slot. Rendering copies the upstream's text: slots the Next Wave app cannot decode are left out, `cnt`
/// counts the slots left, and Pier's `daily` summary is added — every other byte is OpenWeather's.
public struct ForecastDocument: Sendable {
    /// What the daily summary needs of one slot.
    public struct Slot: Sendable, Equatable {
        /// Epoch seconds (UTC).
        public var time: Int
        public var temperature: Double
        public var windSpeed: Double
        public var gust: Double?
        public var weatherID: Int
        /// OpenWeather's `sys.pod` (`d`/`n`), when sent.
        public var daytime: Bool?
        /// Where the slot's object stands in the body.
        var range: Range<Int>
    }

    /// Why an upstream answer was refused (not stored, not served).
    public typealias Problem = DocumentProblem<ForecastDocument>

    public let body: [UInt8]
    /// The slots the app can decode, in the upstream's order.
    public let slots: [Slot]
    /// Why each other slot was left out (`wind.deg missing`, …).
    public let dropped: [String]
    /// `city.timezone`: seconds east of UTC at the point.
    public let utcOffset: Int
    private let list: Range<Int>
    private let count: Range<Int>?
    /// The root object's closing `}`.
    private let end: Int

    public init(parsing body: [UInt8]) throws(Problem) {
        let root: JSONNode
        do { root = try JSONScanner.parse(body) } catch { throw .notJSON(error.description) }
        guard root.isObject else { throw .unexpectedShape("not an object") }
        guard let list = root["list"], let elements = list.elements else { throw .unexpectedShape("no list array") }
        guard let offsetNode = root["city"]?["timezone"], offsetNode.isInteger(in: body), let offset = offsetNode.integer(in: body) else {
            throw .unexpectedShape("no integer city.timezone")
        }
        var slots: [Slot] = []
        var dropped: [String] = []
        for element in elements {
            switch Self.slot(element, in: body) {
            case .success(let slot): slots.append(slot)
            case .failure(let reason): dropped.append(reason.text)
            }
        }
        // Pier asks for metric units: a temperature no air on Earth has had means another unit or a changed answer.
        if let implausible = slots.first(where: { !(-90...60).contains($0.temperature) }) {
            throw .unexpectedShape("a temperature of \(implausible.temperature) is not °C")
        }
        guard !slots.isEmpty else {
            throw .unexpectedShape(elements.isEmpty ? "an empty list" : "no slot the app can decode (\(dropped.first ?? ""))")
        }
        self.body = body
        self.slots = slots
        self.dropped = dropped
        utcOffset = offset
        self.list = list.range
        count = root["cnt"].flatMap { $0.isInteger(in: body) ? $0.range : nil }
        end = root.range.upperBound - 1
    }

    private struct Unusable: Error {
        var text: String
    }

    /// A slot with every member the app's `ForecastResponse` requires, of the type it requires.
    private static func slot(_ node: JSONNode, in body: [UInt8]) -> Result<Slot, Unusable> {
        func integer(_ value: JSONNode?) -> Int? { value.flatMap { $0.isInteger(in: body) ? $0.integer(in: body) : nil } }
        func number(_ value: JSONNode?) -> Double? { value?.number(in: body) }
        guard node.isObject else { return .failure(Unusable(text: "not an object")) }
        guard let time = integer(node["dt"]) else { return .failure(Unusable(text: "dt missing or not an integer")) }
        guard let main = node["main"], let temperature = number(main["temp"]), number(main["feels_like"]) != nil,
            number(main["temp_min"]) != nil, number(main["temp_max"]) != nil
        else { return .failure(Unusable(text: "main temperatures missing")) }
        guard integer(main["pressure"]) != nil, integer(main["humidity"]) != nil else {
            return .failure(Unusable(text: "main.pressure or main.humidity missing or not an integer"))
        }
        guard let weather = node["weather"]?.elements, let first = weather.first,
            weather.allSatisfy({ integer($0["id"]) != nil && $0["main"]?.string != nil && $0["description"]?.string != nil && $0["icon"]?.string != nil })
        else { return .failure(Unusable(text: "weather missing or incomplete")) }
        guard let wind = node["wind"], let speed = number(wind["speed"]) else { return .failure(Unusable(text: "wind.speed missing")) }
        guard integer(wind["deg"]) != nil else { return .failure(Unusable(text: "wind.deg missing or not an integer")) }
        let gustNode = wind["gust"]
        let gust = number(gustNode)
        guard gustNode == nil || gustNode?.isNull == true || gust != nil else { return .failure(Unusable(text: "wind.gust not a number")) }
        guard node["dt_txt"]?.string != nil else { return .failure(Unusable(text: "dt_txt missing")) }
        let pod = node["sys"]?["pod"]?.string
        return .success(
            Slot(
                time: time, temperature: temperature, windSpeed: speed, gust: gust, weatherID: integer(first["id"]) ?? 0,
                daytime: pod.map { $0 == "d" }, range: node.range))
    }

    /// The answer the app gets: the upstream's text without the slots it cannot decode, `cnt` the slots left,
    /// and `"daily":` the given JSON array added as the last member.
    public func rendered(daily: [UInt8]) -> [UInt8] {
        var edits: [(range: Range<Int>, text: [UInt8])] = []
        if !dropped.isEmpty {
            var list: [UInt8] = [UInt8(ascii: "[")]
            for (index, slot) in slots.enumerated() {
                if index > 0 { list.append(UInt8(ascii: ",")) }
                list += body[slot.range]
            }
            list.append(UInt8(ascii: "]"))
            edits.append((self.list, list))
        }
        if let count { edits.append((count, Array(String(slots.count).utf8))) }
        edits.append((end..<end, Array(",\"daily\":".utf8) + daily))
        edits.sort { $0.range.lowerBound < $1.range.lowerBound }
        var out: [UInt8] = []
        out.reserveCapacity(body.count + daily.count + 16)
        var copied = 0
        for edit in edits {
            out += body[copied..<edit.range.lowerBound]
            out += edit.text
            copied = edit.range.upperBound
        }
        out += body[copied...]
        return out
    }
}

extension ForecastDocument: NamedDocument {
    public static var documentName: String { "the forecast" }
}
