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
        keyFile = reader.string("PIER_APNS_KEY_FILE", meaning: "the `.p8` key Apple hands out (Certificates, Identifiers & Profiles → Keys, \"Apple Push Notifications service\"); a path, e.g. a Docker secret's").flatMap { $0.isEmpty ? nil : $0 }
        keyID = reader.string("PIER_APNS_KEY_ID", meaning: "the key's id (ten characters, the provider token's `kid`)").flatMap { $0.isEmpty ? nil : $0 }
        teamID = reader.string("PIER_APNS_TEAM_ID", meaning: "the team's id (the token's `iss`)").flatMap { $0.isEmpty ? nil : $0 }
        topic = reader.string("PIER_APNS_TOPIC", meaning: "the app's bundle id (`apns-topic`)").flatMap { $0.isEmpty ? nil : $0 }
        let url = try reader.url(
            "PIER_APNS_URL", default: "", shown: "Apple's hosts",
            meaning: "one origin for both environments instead of `api.push.apple.com` / `api.sandbox.push.apple.com` (the tests' stand-in)")
        if !url.isEmpty { origin = url }
        if let ca = reader.string("PIER_APNS_CA_FILE", meaning: "**tests only**: a PEM CA trusted for APNs beside the system's; refused at start unless `PIER_APNS_ALLOW_TEST_CA=yes`, and logged as an error when used"), !ca.isEmpty {
            guard try reader.flag("PIER_APNS_ALLOW_TEST_CA", default: false, meaning: "**tests only**: `yes` lets `PIER_APNS_CA_FILE` name a test CA (refused without it)") else {
                throw SettingsProblem.invalid(
                    variable: "PIER_APNS_CA_FILE", value: ca, expected: "unset in production (a test CA needs PIER_APNS_ALLOW_TEST_CA=yes)")
            }
            testCAFile = ca
        } else {
            _ = try reader.flag("PIER_APNS_ALLOW_TEST_CA", default: false, meaning: "**tests only**: `yes` lets `PIER_APNS_CA_FILE` name a test CA (refused without it)")
        }
        deviceRetention = try reader.days("PIER_PUSH_DEVICE_RETENTION_D", default: deviceRetention, meaning: "a device not seen (its app shows or changes its registration) for this many days is deleted with everything about it")
        keep = try reader.days("PIER_PUSH_KEEP_D", default: keep, meaning: "delivered and refused pushes are kept this long (what keeps a push once-only)")
        delivery.batch = try reader.int("PIER_PUSH_BATCH", default: delivery.batch, in: 1...10_000, meaning: "pushes one replica claims per round, how long its claim keeps the others away (a replica killed mid-batch leaves its pushes to the others after it), and the tries before a push APNs keeps answering `429` or `5xx` is given up (`failed`)")
        delivery.lease = try reader.seconds("PIER_PUSH_LEASE_S", default: delivery.lease, meaning: "pushes one replica claims per round, how long its claim keeps the others away (a replica killed mid-batch leaves its pushes to the others after it), and the tries before a push APNs keeps answering `429` or `5xx` is given up (`failed`)")
        delivery.maximumAttempts = try reader.int("PIER_PUSH_MAX_ATTEMPTS", default: delivery.maximumAttempts, in: 1...100, meaning: "pushes one replica claims per round, how long its claim keeps the others away (a replica killed mid-batch leaves its pushes to the others after it), and the tries before a push APNs keeps answering `429` or `5xx` is given up (`failed`)")
        registrations = try RegistrationLimits.Settings(
            reader, budget: "PIER_PUSH_DEVICES", rate: "registrations and changes (`POST`, `PUT /v1/devices`): everybody's budget and one client's share of it (its App Attest device, else its address and network) — 30 a minute and 5 at once by default; past it `429`", of: "device registrations",
            perDay: ("PIER_PUSH_REGISTRATIONS_PER_DAY", "new devices a network (an IPv4 /24, an IPv6 /48) may register per UTC day without a device's proof (App Attest off, or `prefer` without a token); counted in PostgreSQL across replicas, in the registration's transaction. A carrier's NAT puts many subscribers behind one /24: raise it rather than lower it, or turn App Attest on (attested devices are not counted). `0`: only attested devices register"), defaults: registrations)
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
