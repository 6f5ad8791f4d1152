import Parsing

/// APNs' error document, `{"reason":"BadDeviceToken"}` or `{"reason":"Unregistered","timestamp":1700000000000}`, read
/// leniently: an empty, cut or foreign body yields no reason and the status decides alone.
public struct APNsAnswer: Equatable, Sendable {
    /// At most this many characters of a reason are kept (Apple's longest is 30).
    public static let maximumReason = 64

    public var reason: String?
    /// Milliseconds since 1970.
    public var timestamp: Int64?

    public init(_ body: [UInt8]) {
        guard !body.isEmpty, let document = try? JSONScanner.parse(body) else { return }
        if let reason = document["reason"]?.string, !reason.isEmpty {
            // The reason lands in metrics' labels and logs: Apple's words are letters only.
            let letters = reason.unicodeScalars.prefix(Self.maximumReason).filter { ($0.value >= 0x41 && $0.value <= 0x5A) || ($0.value >= 0x61 && $0.value <= 0x7A) }
            self.reason = letters.isEmpty ? nil : String(String.UnicodeScalarView(letters))
        }
        if let stamp = document["timestamp"]?.integer(in: body) { timestamp = Int64(stamp) }
    }
}
