import APNsFormat
import Feature
import Limits
import OnDemand
import Settings

/// The push engine's settings. Without the four key settings the engine is off: `/health` says `disabled` and the
/// features' device routes answer `503`.
public struct PushSettings: Sendable {
    /// `PIER_APNS_KEY_FILE` (a secret's path: the `.p8` Apple hands out), `PIER_APNS_KEY_ID`, `PIER_APNS_TEAM_ID`,
    /// `PIER_APNS_TOPIC` (the app's bundle id).
    public var keyFile: String?
    public var keyID: String?
    public var teamID: String?
    public var topic: String?
    /// `PIER_APNS_URL`: one origin for both environments instead of Apple's (the test stand-in).
    public var origin: String?
    /// `PIER_APNS_CA_FILE`: a CA trusted for APNs besides the system's — only with `PIER_APNS_ALLOW_TEST_CA=yes`
    /// (tests and benchmarks; refused otherwise, and logged as an error when used).
    public var testCAFile: String?
    /// `PIER_PUSH_DEVICE_RETENTION_D`: a device not seen for this long is deleted with everything about it.
    public var deviceRetention: Duration = .seconds(90 * 86_400)
    /// `PIER_PUSH_KEEP_D`: how long delivered and refused pushes are kept (they keep a push once-only).
    public var keep: Duration = .seconds(30 * 86_400)
    /// `PIER_PUSH_BATCH`, `PIER_PUSH_LEASE_S`, `PIER_PUSH_MAX_ATTEMPTS`.
    public var delivery = PushDelivery.Settings()
    /// `PIER_PUSH_DEVICES_REQUESTS_PER_MINUTE`, `…_BURST`, `…_CLIENT_SHARE`, `PIER_PUSH_REGISTRATIONS_PER_DAY`: what a
    /// device's registration may cost — registrations and changes, by default 30 a minute and 5 at once for one device
    /// or address; 200 new devices a network's day (high: a carrier's NAT puts many subscribers behind one /24).
    public var registrations = RegistrationLimits.Settings(budget: BudgetSettings(ratePerMinute: 600, burst: 100, clientShare: 0.05), perNetworkPerDay: 200)

    public init() {}

    public init(_ reader: SettingsReader) throws {
        keyFile = reader.string("PIER_APNS_KEY_FILE").flatMap { $0.isEmpty ? nil : $0 }
        keyID = reader.string("PIER_APNS_KEY_ID").flatMap { $0.isEmpty ? nil : $0 }
        teamID = reader.string("PIER_APNS_TEAM_ID").flatMap { $0.isEmpty ? nil : $0 }
        topic = reader.string("PIER_APNS_TOPIC").flatMap { $0.isEmpty ? nil : $0 }
        if reader.string("PIER_APNS_URL") != nil { origin = try reader.url("PIER_APNS_URL", default: "") }
        if let ca = reader.string("PIER_APNS_CA_FILE"), !ca.isEmpty {
            guard try reader.flag("PIER_APNS_ALLOW_TEST_CA", default: false) else {
                throw SettingsProblem.invalid(
                    variable: "PIER_APNS_CA_FILE", value: ca, expected: "unset in production (a test CA needs PIER_APNS_ALLOW_TEST_CA=yes)")
            }
            testCAFile = ca
        } else {
            _ = try reader.flag("PIER_APNS_ALLOW_TEST_CA", default: false)
        }
        deviceRetention = try reader.days("PIER_PUSH_DEVICE_RETENTION_D", default: deviceRetention)
        keep = try reader.days("PIER_PUSH_KEEP_D", default: keep)
        delivery.batch = try reader.int("PIER_PUSH_BATCH", default: delivery.batch, in: 1...10_000)
        delivery.lease = try reader.seconds("PIER_PUSH_LEASE_S", default: delivery.lease)
        delivery.maximumAttempts = try reader.int("PIER_PUSH_MAX_ATTEMPTS", default: delivery.maximumAttempts, in: 1...100)
        registrations = try RegistrationLimits.Settings(reader, budget: "PIER_PUSH_DEVICES", perDay: "PIER_PUSH_REGISTRATIONS_PER_DAY", defaults: registrations)
    }

    /// A signing key and the topic it pushes to.
    public struct Key: Sendable, Equatable {
        public var file: String
        public var id: String
        public var team: String
        public var topic: String
    }

    /// The key settings, all four, or `nil` (the engine is off).
    var key: Key? {
        guard let keyFile, let keyID, let teamID, let topic else { return nil }
        return Key(file: keyFile, id: keyID, team: teamID, topic: topic)
    }

    /// All four key settings are given: the engine delivers.
    public var isConfigured: Bool { key != nil }

    /// What `/health` says while off: which settings are missing (names only).
    var missing: [String] {
        [("PIER_APNS_KEY_FILE", keyFile), ("PIER_APNS_KEY_ID", keyID), ("PIER_APNS_TEAM_ID", teamID), ("PIER_APNS_TOPIC", topic)]
            .filter { $0.1 == nil }.map(\.0)
    }
}
