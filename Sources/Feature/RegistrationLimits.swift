import Basics
import Feature
import Foundation
import HTTPServer
import Identity
import Limits
import Metrics
import Postgres

/// What a device's registration may cost, decided before anything is stored, cheapest first. Registering spends like
/// any other request that costs work: it counts as whoever ``Spenders`` says the request is — a device its App Attest
/// token proves, or its address — against a share of the registrations budget (`429` past it), and under App Attest's
/// `require` a request without a valid token is refused (`401`). A registration by a client without a device's proof
/// (App Attest off, or `prefer` without a token) is also counted against its network's day (an IPv4 /24, an IPv6 /48:
/// ``DailyCounter``, in the registration's own transaction), so that nobody fills the outbox's fan-out with devices
/// made up by the thousand from one network.
public final class RegistrationLimits: Sendable {
    public struct Settings: Sendable {
        /// `PIER_PUSH_DEVICES_REQUESTS_PER_MINUTE`, `…_BURST`, `…_CLIENT_SHARE`: registrations and changes, everybody's
        /// and one client's share (by default 30 a minute and 5 at once for one device or address).
        public var budget = BudgetSettings(ratePerMinute: 600, burst: 100, clientShare: 0.05)
        /// `PIER_PUSH_REGISTRATIONS_PER_DAY`: new registrations a network may make per UTC day without a device's
        /// proof (a carrier's NAT puts many subscribers behind one /24; `0`: only attested devices register).
        public var perNetworkPerDay = 200

        public init() {}

        public init(_ reader: SettingsReader) throws {
            budget = try reader.budget("PIER_PUSH_DEVICES", default: budget)
            perNetworkPerDay = try reader.int("PIER_PUSH_REGISTRATIONS_PER_DAY", default: perNetworkPerDay, in: 0...10_000_000)
        }
    }

    /// A registration let through: the network's count to take with it (none for an attested device).
    public struct Admitted: Sendable {
        let network: String?
    }

    private let spenders: Spenders
    private let budget: SpenderBudget
    private let daily: DailyCounter
    private let refused: [String: Counter]

    public init(settings: Settings, spenders: Spenders, metrics: MetricsRegistry?, clock: @escaping @Sendable () -> Double = { Double(MonotonicClock.now()) / 1e9 }) {
        self.spenders = spenders
        budget = SpenderBudget(settings.budget, clock: clock)
        daily = DailyCounter(scope: "push-registrations", limit: settings.perNetworkPerDay)
        let registry = metrics ?? MetricsRegistry()
        refused = Dictionary(uniqueKeysWithValues: ["credential", "share", "network_day"].map { reason in
            (reason, registry.counter(
                "pier_push_registrations_refused_total", help: "Device registrations and changes refused before anything was stored, by reason.",
                labels: [("reason", reason)]))
        })
    }

    /// Decided on the event loop, before the body is stored: who `request` counts as, and whether it may register.
    public func admit(_ request: HTTPRequest) throws(HTTPError) -> Admitted {
        let spender = spenders.spender(of: request)
        if let refusal = spender.refusal {
            refused["credential"]?.increment()
            throw Spender.Refusal.httpError(refusal.refused())
        }
        if case .refused(let why, let retryAfter, _) = budget.acquire(for: spender.groups) {
            refused["share"]?.increment()
            let whose = why == .budget ? "this server has taken all the device registrations it takes for now" : "this client has made its share of device registrations for now"
            throw OnDemandUnavailable(whose, retryAfter: RetryAfter.seconds(retryAfter), cause: .clientShare).httpError()
        }
        return Admitted(network: spender.isDevice ? nil : spender.address.network.description)
    }

    /// Takes the network's count of the day for `admitted`, on `connection` (the registration's transaction): throws
    /// the refusal when the network has made its registrations of the day, so that nothing is stored.
    public func take(_ admitted: Admitted, now: Date = Date(), on connection: PostgresConnection) throws {
        guard let network = admitted.network, try !daily.take(network, day: DailyCounter.day(now), on: connection) else { return }
        refused["network_day"]?.increment()
        throw OnDemandUnavailable(
            "this network has made its device registrations for today (PIER_PUSH_REGISTRATIONS_PER_DAY); an attested app counts on its own",
            retryAfter: DailyCounter.secondsToNextDay(now), cause: .clientShare
        ).httpError()
    }
}
