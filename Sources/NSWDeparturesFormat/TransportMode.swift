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

    /// ``init(request:)-(String)`` of a query value's bytes as they lie: the name's length picks the candidates, whose
    /// letters are compared without case (every request with `mode` parses one; a walk of every name's `String` was 600
    /// instructions of a cached board). ``requestable`` lists the same names.
    public init?(request bytes: UnsafeBufferPointer<UInt8>) {
        func named(_ name: StaticString) -> Bool {
            name.utf8CodeUnitCount == bytes.count && (0..<bytes.count).allSatisfy { name.utf8Start[$0] == bytes[$0] | 0x20 }
        }
        switch bytes.count {
        case 3 where named("bus"): self = .bus
        case 5 where named("train"): self = .train
        case 5 where named("metro"): self = .metro
        case 5 where named("ferry"): self = .ferry
        case 5 where named("coach"): self = .coach
        case 9 where named("lightrail"): self = .lightrail
        default: return nil
        }
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
