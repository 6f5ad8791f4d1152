import APNs
import APNsFormat
import Feature
import Foundation
import HTTPServer
import Logging
import OnDemand

/// The push delivery engine as a feature: APNs' settings read once, the outbox delivered by every replica, `/health`'s
/// `push` member and the push metrics. It serves no route of its own; the features that register devices (official
/// warnings for the places people saved) hold its ``engine`` and enqueue.
public struct PushFeature: Feature {
    public var name: String { "push" }

    /// `nil` when the key settings are missing (the engine is off).
    public let engine: PushEngine?
    private let missing: [String]

    public init(settings: PushSettings, context: FeatureContext, logger: Logger = Logger(label: "pier.push")) throws {
        missing = settings.missing
        let registry = context.metrics ?? .init()
        let makeSender: @Sendable (PushSettings.Key) throws -> any PushSender
        if context.upstreamsAreRecordings {
            // The demo and replays send nothing anywhere, key or not: every push is logged as it would go.
            makeSender = { _ in LoggedPushSender() }
        } else if settings.key != nil {
            if let ca = settings.testCAFile {
                logger.error("APNs is reached trusting a test CA (PIER_APNS_CA_FILE with PIER_APNS_ALLOW_TEST_CA=yes): never in production", metadata: ["ca_file": "\(ca)"])
            }
            let origins = settings.origin.map { origin in Dictionary(uniqueKeysWithValues: APNsEnvironment.allCases.map { ($0, origin) }) }
            let tokens = ProviderTokens()
            let caFile = settings.testCAFile
            makeSender = { key in
                APNsClient(
                    configuration: .init(topic: key.topic, origins: origins ?? APNsClient.Configuration.apple, transport: .init(caFile: caFile)),
                    token: try tokens.token(for: key))
            }
            registry.gauge("pier_push_provider_tokens_signed", help: "APNs provider tokens this process signed (about two an hour a key; more means refused tokens).") {
                Double(tokens.signed)
            }
        } else {
            engine = nil
            return
        }
        // The demo without a key: every app's pushes are logged.
        let sender = try settings.key.map(makeSender) ?? LoggedPushSender()
        let metrics = PushMetrics(registry: registry)
        let registrations = RegistrationLimits(Self.registrations, settings: settings.registrations, spenders: context.spenders, metrics: registry)
        engine = PushEngine(
            outbox: PushOutbox(pool: context.pool), sender: sender, settings: settings, registrations: registrations, metrics: metrics, logger: logger,
            makeSender: makeSender)
    }

    /// Device registrations for pushes, as their limits name them.
    static let registrations = RegistrationLimits.Kind(
        what: "device registrations", scope: "push-registrations", perDaySetting: "PIER_PUSH_REGISTRATIONS_PER_DAY",
        metric: "pier_push_registrations_refused_total", help: "Device registrations and changes refused before anything was stored, by reason.")

    public func run() async {
        await engine?.run()
    }

    /// No route of its own: the features that register devices serve theirs.
    public func register(in router: inout Router) {}

    public var healthMembers: [String: @Sendable () -> any Encodable & Sendable] {
        if let engine { return ["push": { engine.health() }] }
        let disabled = Disabled(missing: missing)
        return ["push": { disabled }]
    }

    /// `/health`'s `push` while the engine is off: the settings it misses (their names, never a value).
    struct Disabled: Encodable, Sendable {
        let state = "disabled"
        let missing: [String]
    }
}
