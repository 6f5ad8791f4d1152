
/// Why MET Norway's answer could not be used.
public enum METNorwayError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The body is not a Locationforecast GeoJSON feature (`reason` says what was wrong).
    case unreadable(String)
    /// No step with a time and a value.
    case empty
    /// `429`: MET throttles this server; slow down at once.
    case throttled(retryAfter: Int?)
    /// `403`: MET refused — a terms-of-service violation, a missing identification or too many decimals.
    case refused
    /// `404`/`422`: no data for the point (outside the product's area).
    case noData(status: Int)

    public var description: String {
        switch self {
        case let .unreadable(reason): "MET Norway's answer is unreadable: \(reason)"
        case .empty: "MET Norway's answer holds no forecast step"
        case .throttled: "MET Norway throttles this server (429)"
        case .refused: "MET Norway refused the request (403: check PIER_CONTACT, the User-Agent and the decimals asked)"
        case let .noData(status): "MET Norway has no forecast for this point (\(status))"
        }
    }
}
