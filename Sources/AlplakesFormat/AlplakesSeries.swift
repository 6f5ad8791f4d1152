import Foundation
import Parsing

/// A checked `/simulations/1d/point/simstrat/{lake}/{start}/{end}/{depth}` answer: the upstream's bytes, and
/// where each step's time and value stand, so that a narrower window is served as the upstream would have
/// written it (only the two arrays shortened).
public struct AlplakesSeries: Sendable {
    public struct Step: Sendable, Equatable {
        public var time: Date
        public var temperature: Double?
    }

    public let body: [UInt8]
    public let steps: [Step]
    private let timeNodes: [Range<Int>]
    private let valueNodes: [Range<Int>]
    private let timeArray: Range<Int>
    private let valueArray: Range<Int>

    public init(parsing body: [UInt8]) throws(AlplakesProblem) {
        let root: JSONNode
        do { root = try JSONScanner.parse(body) } catch { throw .notJSON(error.description) }
        guard root.isObject else { throw .unexpectedShape("the series is not an object") }
        guard let times = root["time"], let timeElements = times.elements else { throw .unexpectedShape("the series has no time list") }
        guard let values = root["variables"]?["T"]?["data"], let valueElements = values.elements, valueElements.count == timeElements.count else {
            throw .unexpectedShape("the series' variables.T.data does not match its times")
        }
        var steps: [Step] = []
        for (time, value) in zip(timeElements, valueElements) {
            guard let text = time.string, let date = AlplakesTime.answer(text) else { throw .unexpectedShape("a time of the series is not ISO 8601") }
            guard value.isNull || value.number(in: body) != nil else { throw .unexpectedShape("a value of the series is not a number") }
            if let number = value.number(in: body), !AlplakesAnswer.plausible.contains(number) {
                throw .unexpectedShape("a series temperature of \(number) is not a lake's in °C")
            }
            steps.append(Step(time: date, temperature: value.number(in: body)))
        }
        guard root["depth"]?["data"]?.number(in: body) != nil else { throw .unexpectedShape("the series has no depth") }
        self.body = body
        self.steps = steps
        timeNodes = timeElements.map(\.range)
        valueNodes = valueElements.map(\.range)
        timeArray = times.range
        valueArray = values.range
    }

    /// The answer for `[start, end]`: the upstream's text with only the steps inside.
    public func restricted(from start: Date, to end: Date) -> [UInt8] {
        let kept = steps.indices.filter { steps[$0].time >= start && steps[$0].time <= end }
        func array(_ nodes: [Range<Int>]) -> [UInt8] {
            var out: [UInt8] = [UInt8(ascii: "[")]
            for (position, index) in kept.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                out += body[nodes[index]]
            }
            out.append(UInt8(ascii: "]"))
            return out
        }
        let edits = [(timeArray, array(timeNodes)), (valueArray, array(valueNodes))].sorted { $0.0.lowerBound < $1.0.lowerBound }
        var out: [UInt8] = []
        var copied = 0
        for (range, text) in edits {
            out += body[copied..<range.lowerBound]
            out += text
            copied = range.upperBound
        }
        out += body[copied...]
        return out
    }
}
