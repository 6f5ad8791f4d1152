import Foundation
import Parsing

/// A checked `/simulations/1d/profile/simstrat/{lake}/{time}` answer: kept as the upstream's bytes (the
/// drop-in route serves them unchanged), with its model time and surface temperature.
public struct AlplakesProfile: Sendable {
    public let body: [UInt8]
    public let time: Date
    /// The last non-null value of `variables.T.data` (the grid runs from the bottom to the surface).
    public let surfaceTemperature: Double?

    public init(parsing body: [UInt8]) throws(AlplakesProblem) {
        let root: JSONNode
        do { root = try JSONScanner.parse(body) } catch { throw .notJSON(error.description) }
        guard root.isObject else { throw .unexpectedShape("the profile is not an object") }
        guard let text = root["time"]?.string, let time = AlplakesTime.answer(text) else { throw .unexpectedShape("the profile has no time") }
        // The app decodes `depth.data` as [Double] (a null breaks it) and `T.data` as [Double?].
        guard let depths = root["depth"]?["data"]?.elements, !depths.isEmpty, depths.allSatisfy({ $0.number(in: body) != nil }) else {
            throw .unexpectedShape("the profile's depth.data is not a list of numbers")
        }
        guard let values = root["variables"]?["T"]?["data"]?.elements, values.count == depths.count,
            values.allSatisfy({ $0.isNull || $0.number(in: body) != nil })
        else { throw .unexpectedShape("the profile's variables.T.data does not match its depths") }
        if let implausible = values.lazy.compactMap({ $0.number(in: body) }).first(where: { !AlplakesAnswer.plausible.contains($0) }) {
            throw .unexpectedShape("a profile temperature of \(implausible) is not a lake's in °C")
        }
        self.body = body
        self.time = time
        surfaceTemperature = values.reversed().lazy.compactMap { $0.number(in: body) }.first
    }
}

/// Why an Alplakes answer was refused (not stored, not served).
/// What is wrong with an Alplakes answer (a profile or a series).
public typealias AlplakesProblem = DocumentProblem<AlplakesAnswer>

/// An answer of Eawag's Alplakes API, as its problems name it.
public enum AlplakesAnswer {
    /// Lake water in °C; a value outside (Kelvin, a fill value such as -999) means the answer changed.
    static let plausible: ClosedRange<Double> = -5...45
}

extension AlplakesAnswer: NamedDocument {
    public static var documentName: String { "the Alplakes answer" }
}
