import Foundation

/// A number written with a fixed count of decimals by ``OrderedJSONEncoder`` (`0.500`: a share operators compare by
/// eye); other encoders write the `Double`.
public struct FixedDecimal: Encodable, Sendable, Equatable {
    public var value: Double
    public var digits: Int

    public init(_ value: Double, digits: Int) {
        self.value = value
        self.digits = digits
    }

    /// The number's text, or `nil` when it is not finite (written `null`).
    var text: String? {
        value.isFinite ? String(format: "%.\(digits)f", value) : nil
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(value)
    }
}
