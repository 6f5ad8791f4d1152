import Basics
import Feature
import Foundation
import HTTPServer
import Identity
import Limits
import Metrics
import Postgres
import Settings

/// What making something new for a client may cost (a device's push registration, a community's sign-up), decided
/// before anything is stored, cheapest first. It spends like any other request that costs work: it counts as whoever
/// ``Spenders`` says the request is — a device its App Attest token proves, or its address — against a share of the
/// kind's budget (`429` past it), and under App Attest's `require` a request without a valid token is refused (`401`).
/// One made by a client without a device's proof (App Attest off, or `prefer` without a token) is also counted against
/// its network's day (an IPv4 /24, an IPv6 /48: ``DailyCounter``, in the making's own transaction), so that nobody makes
/// them by the thousand from one network.
public final class RegistrationLimits: Sendable {
    public struct Settings: Sendable, Equatable {
        /// Everybody's rate, burst, and one client's share.
        public var budget: BudgetSettings
        /// New ones a network may make per UTC day without a device's proof (a carrier's NAT puts many subscribers behind
        /// one /24; `0`: only attested devices make them).
        public var perNetworkPerDay: Int

        public init(budget: BudgetSettings, perNetworkPerDay: Int) {
            self.budget = budget
            self.perNetworkPerDay = perNetworkPerDay
        }

        /// `<budget>_REQUESTS_PER_MINUTE`, `…_BURST`, `…_CLIENT_SHARE` and `perDay`, over `defaults`.
        /// `rate` is the rate's meaning, `subject` what the burst and the share speak of, `perDay` the network's day's
        /// setting and its meaning.
        public init(
            _ reader: SettingsReader, budget prefix: String, rate: String, of subject: String, perDay: (name: String, meaning: String),
            defaults: Settings
        ) throws {
            budget = try reader.budget(prefix, default: defaults.budget, rate: rate, of: subject)
            perNetworkPerDay = try reader.int(perDay.name, default: defaults.perNetworkPerDay, in: 0...10_000_000, meaning: perDay.meaning)
        }
    }

    /// What is limited, in the words refusals and metrics use.
    public struct Kind: Sendable {
        /// Plural, as a refusal says it: `device registrations`, `sign-ups`.
        public var what: String
        /// The network's daily count's scope in `daily_counts`.
        public var scope: String
        /// The setting of the network's day, named in its refusal.
        public var perDaySetting: String
        /// The refusals' counter (`reason`: credential, share, network_day) and its help.
        public var metric: String
        public var help: String

        public init(what: String, scope: String, perDaySetting: String, metric: String, help: String) {
            self.what = what
            self.scope = scope
            self.perDaySetting = perDaySetting
            self.metric = metric
            self.help = help
        }
    }

    /// Let through: the network's count to take with it (none for an attested device).
    public struct Admitted: Sendable {
        let network: String?
    }

    private let kind: Kind
    private let spenders: Spenders
    private let budget: SpenderBudget
    private let daily: DailyCounter
    private let refused: [String: Counter]

    public init(
        _ kind: Kind, settings: Settings, spenders: Spenders, metrics: MetricsRegistry?,
        clock: @escaping @Sendable () -> Double = { Double(MonotonicClock.now()) / 1e9 }
    ) {
        self.kind = kind
        self.spenders = spenders
        budget = SpenderBudget(settings.budget, clock: clock)
        daily = DailyCounter(scope: kind.scope, limit: settings.perNetworkPerDay)
        let registry = metrics ?? MetricsRegistry()
        refused = Dictionary(uniqueKeysWithValues: ["credential", "share", "network_day"].map { reason in
            (reason, registry.counter(kind.metric, help: kind.help, labels: [("reason", reason)]))
        })
    }

    /// Decided on the event loop, before the body is stored: who `request` counts as, and whether it may go on.
    public func admit(_ request: HTTPRequest) throws(HTTPError) -> Admitted {
        let spender = spenders.spender(of: request)
        if let refusal = spender.refusal {
            refused["credential"]?.increment()
            throw Spender.Refusal.httpError(refusal.refused())
        }
        if case .refused(let why, let retryAfter, _) = budget.acquire(for: spender.groups) {
            refused["share"]?.increment()
            let whose = why == .budget ? "this server has taken all the \(kind.what) it takes for now" : "this client has made its share of \(kind.what) for now"
            throw OnDemandUnavailable(whose, retryAfter: RetryAfter.seconds(retryAfter), cause: .clientShare).httpError()
        }
        return Admitted(network: spender.isProven ? nil : spender.address.network.description)
    }

    /// Takes the network's count of the day for `admitted`, on `connection` (the making's transaction): throws the
    /// refusal when the network has made its share of the day, so that nothing is stored.
    public func take(_ admitted: Admitted, now: Date = Date(), on connection: PostgresConnection) throws {
        guard let network = admitted.network, try !daily.take(network, day: DailyCounter.day(now), on: connection) else { return }
        refused["network_day"]?.increment()
        throw OnDemandUnavailable(
            "this network has made its \(kind.what) for today (\(kind.perDaySetting)); an attested app counts on its own",
            retryAfter: DailyCounter.secondsToNextDay(now), cause: .clientShare
        ).httpError()
    }
}
