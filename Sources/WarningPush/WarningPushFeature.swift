import Basics
import Feature
import HTTPServer
import Logging
import Metrics
import Push
import Scheduling
import WarningPushFormat
import Warnings

/// Official warnings pushed to the places people saved: the device routes (`/v1/devices`), and the notifier that
/// looks at the warnings in force whenever they change (and every minute, for expiries) and hands the pushes to the
/// push engine. Off — routes `503` — while the engine is (no APNs key).
public struct WarningPushFeature: Feature {
    public var name: String { "warning-push" }
    /// The app its devices belong to (the Finnish weather app): its tokens are its own, its topic and key
    /// `PIER_WARNINGS_APNS_*` where they differ from `PIER_APNS_*`.
    public static let app = "warnings"

    /// How often the notifier looks without being asked (a warning's expiry is noticed within this).
    static let interval: Duration = .seconds(60)

    private let store: WarningSubscriptionStore?
    private let notifier: WarningNotifier
    private let engine: PushEngine?
    private let nudge = Nudge()
    private let logger = Logger(label: "pier.warning-push")
    /// The last look's duration (the fan-out query's time when a warning reached many places) and what looks enqueued.
    private let lookSeconds: Gauge?
    private let enqueued: Counter?

    private let places: (any WarningPlaces)?

    /// - Parameter places: where a place saved by name lies (the weather's names, FMI's); `nil`: points only.
    /// - Parameter app: its app's APNs topic and key (`PIER_WARNINGS_APNS_*`).
    public init(context: FeatureContext, push: PushEngine?, places: (any WarningPlaces)?, app: PushApp = PushApp(name: Self.app)) throws {
        engine = push
        try push?.enable(app)
        self.places = places
        store = push == nil ? nil : WarningSubscriptionStore(pool: context.pool)
        notifier = WarningNotifier(pool: context.pool)
        lookSeconds = push == nil ? nil : context.metrics?.gauge(
            "pier_warning_push_look_seconds", help: "How long the notifier's last look took (matching the warnings in force with the places saved, and enqueueing).")
        enqueued = push == nil ? nil : context.metrics?.counter(
            "pier_warning_push_enqueued_total", help: "Warning pushes and all-clears the notifier handed to the push engine.")
    }

    public func run() async {
        guard let engine else { return }
        while !Task.isCancelled {
            do {
                let started = ContinuousClock.now
                let summary = try await notifier.notify()
                if summary.ran { lookSeconds?.set((ContinuousClock.now - started).seconds) }
                enqueued?.increment(by: UInt64(summary.pushes + summary.allClears))
                if summary.pushes + summary.allClears > 0 {
                    logger.info("warning pushes enqueued", metadata: ["pushes": "\(summary.pushes)", "all_clears": "\(summary.allClears)", "warnings": "\(summary.warnings)"])
                    engine.wake()
                }
            } catch {
                logger.error("the warnings could not be matched with the registrations", metadata: ["error": "\(error)"])
            }
            await nudge.wait(atMost: Self.interval)
        }
    }

    /// The demo's device: one registration over Helsinki (English, all-clears too), whose pushes the demo logs as they
    /// would go.
    public func seedDemo(from directory: String) async throws {
        guard let store else { return }
        let body = JSONWriter.make { json in
            json.object { json in
                json.member("token", String(repeating: "de", count: 32))
                json.member("environment", "development")
                json.member("language", "en")
                json.member("places", array: { json in
                    json.object { json in
                        json.member("lat", 60.17)
                        json.member("lon", 24.94)
                    }
                })
                json.member("all_clear", true)
            }
        }
        _ = try await store.create(try DeviceRegistration(json: body))
    }

    /// New warnings (fetched here or by another replica): look now.
    public func changed(_ topic: ChangeTopic) async {
        if topic == WarningsFeature.topic { nudge.nudge() }
    }

    public func register(in router: inout Router) {
        let nudge = self.nudge
        let on = store.flatMap { store in engine.map { (store: store, limits: $0.registrations) } }
        DeviceRoutes(on: on, places: places, changed: { nudge.nudge() }).register(in: &router)
    }
}
