/// A TfNSW mode as the route names it (`mode=`) and as `departure_mon` writes it (`transportation.product.class`),
/// with the mode colour the app paints its badge in.
public enum TransportMode: String, Sendable, CaseIterable, Codable {
    case train, metro, lightrail, bus, coach, ferry
    /// Class 11: shown as a bus (its colour), but only in answers for all modes — the app's `mode=bus`
    /// request leaves school buses out (it excludes class 11), and so does Pier's.
    case schoolbus

    /// The modes `mode=` accepts (case-insensitive: the app's own name is `lightRail`).
    public static let requestable: [TransportMode] = [.bus, .lightrail, .train, .metro, .ferry, .coach]

    public init?(request text: String) {
        var text = text
        guard let found = text.withUTF8({ Self(request: $0) }) else { return nil }
        self = found
    }

    /// ``init(request:)-(String)`` of a query value's bytes as they lie: each of ``requestable``'s names of that length,
    /// its letters compared without case (every request with `mode` parses one; a walk of every name's `String` was 600
    /// instructions of a cached board).
    public init?(request bytes: UnsafeBufferPointer<UInt8>) {
        let found = Self.requestable.first { mode in
            // A name's length is read without a walk (a small string), so only names as long are compared.
            mode.rawValue.utf8.count == bytes.count && mode.rawValue.utf8.enumerated().allSatisfy { $0.element == bytes[$0.offset] | 0x20 }
        }
        guard let found else { return nil }
        self = found
    }

    /// `transportation.product.class`; an unknown class is shown as a bus (the most common mode).
    public init(productClass: Int?) {
        switch productClass {
        case 1: self = .train
        case 2: self = .metro
        case 4: self = .lightrail
        case 7: self = .coach
        case 9: self = .ferry
        case 11: self = .schoolbus
        default: self = .bus
        }
    }

    /// TfNSW's mode colour (hex, no `#`: the app's `Color(hex:)` accepts both).
    public var colour: String {
        switch self {
        case .train: "F6891F"
        case .metro: "168388"
        case .lightrail: "EE343F"
        case .bus, .schoolbus: "00B5EF"
        case .ferry: "5AB031"
        case .coach: "742283"
        }
    }

    /// The text colour on every mode colour.
    public static let foreground = "FFFFFF"
}
