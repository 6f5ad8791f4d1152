import Basics
import Feature
import Foundation
import HTTPServer
import Identity
import Limits
import Metrics

/// What writes (check-ins, names, device tokens, verified sessions, session refreshes) may cost: each counts against
/// everybody's budget, the user's share and the address's (or attested device's), so neither one user nor one network
/// can fill the tables; past it `429` with `Retry-After` by the one refusal rule.
final class WriteLimits: Sendable {
    enum Writer: Hashable, Sendable {
        case user(String)
        case group(ClientGroup)
    }

    private let budget: RequestBudget<Writer>
    private let spenders: Spenders
    private let refused: Counter?

    init(_ settings: BudgetSettings, spenders: Spenders, metrics: MetricsRegistry?, clock: @escaping @Sendable () -> Double = { Double(MonotonicClock.now()) / 1e9 }) {
        budget = RequestBudget(settings, clock: clock)
        self.spenders = spenders
        refused = metrics?.counter("pier_nextwave_writes_refused_total", help: "Next Wave community writes and session refreshes refused for their cost.")
    }

    /// Takes one write for `user` (`nil`: a session refresh, known only by its address) or throws the refusal.
    func admit(_ request: HTTPRequest, user: String?) throws(HTTPError) {
        let spender = spenders.spender(of: request)
        var writers = spender.groups.map(Writer.group)
        if let user { writers.append(.user(user)) }
        guard case .refused(let why, let retryAfter, _) = budget.acquire(for: writers) else { return }
        refused?.increment()
        let whose = why == .budget ? "this server takes no more community writes for now" : "this client has made its share of community writes for now"
        throw OnDemandUnavailable(whose, retryAfter: RetryAfter.seconds(retryAfter), cause: .clientShare).httpError()
    }
}
