import Basics
import Feature
import Foundation
import HTTPServer
import Identity
import Limits
import Metrics
import OnDemand

/// What the community's requests may cost, one kind of request each — writes (check-ins, names, device tokens,
/// verified sessions, session refreshes) and reads (tables, the functions, counts that memory cannot answer): each
/// counts against everybody's budget, the user's share and the address's (or attested device's), so neither one user
/// nor one network can fill the tables or keep PostgreSQL busy for the others; past it `429` with `Retry-After` by
/// the one refusal rule.
final class ShareLimits: Sendable {
    /// One kind of request: how its refusal is worded and counted.
    struct Kind: Sendable {
        /// "writes", "reads".
        var what: String
        var metric: String
        var help: String

        static let writes = Kind(
            what: "writes", metric: "pier_nextwave_writes_refused_total",
            help: "Next Wave community writes and session refreshes refused for their cost.")
        static let reads = Kind(
            what: "reads", metric: "pier_nextwave_reads_refused_total",
            help: "Next Wave community reads and function calls refused for their cost (answers held in memory spend nothing).")
    }

    private let kind: Kind
    private let budget: RequestBudget<ClientGroup>
    private let spenders: Spenders
    private let refused: Counter?

    init(_ kind: Kind, _ settings: BudgetSettings, spenders: Spenders, metrics: MetricsRegistry?, clock: @escaping @Sendable () -> Double = { Double(MonotonicClock.now()) / 1e9 }) {
        self.kind = kind
        budget = RequestBudget(settings, clock: clock)
        self.spenders = spenders
        refused = metrics?.counter(kind.metric, help: kind.help)
    }

    /// Takes one request for `user` (`nil`: known only by its address — a session refresh, the public key) or throws
    /// the refusal. A write costs one per row (`rows`): the apps write one row per check-in, and every row changed is
    /// a change every subscriber is sent, so a 100-row upsert costs what 100 check-ins cost.
    func admit(_ request: HTTPRequest, user: String?, rows: Int = 1) throws(HTTPError) {
        let charged = clients(request, user: user)
        guard case .refused(let why, let retryAfter, _) = budget.acquire(for: charged, units: rows) else { return }
        refused?.increment()
        let whose = why == .budget ? "this server takes no more community \(kind.what) for now" : "this client has made its share of community \(kind.what) for now"
        throw OnDemandUnavailable(whose, retryAfter: RetryAfter.seconds(retryAfter), cause: .clientShare).httpError()
    }

    /// Charges a granted write's rows beyond the first once they are known (a delete's), as a debt paid before the
    /// writer's next request.
    func charge(_ request: HTTPRequest, user: String?, rows: Int) {
        budget.charge(clients(request, user: user), units: rows - 1)
    }

    private func clients(_ request: HTTPRequest, user: String?) -> [ClientGroup] {
        var charged = spenders.spender(of: request).groups
        if let user { charged.append(ClientGroup(kind: .communityUser, name: user)) }
        return charged
    }
}

extension ClientGroup.Kind {
    /// A signed-in rider of the community, counted as themselves beside their address (one rider cannot spend a
    /// network's share, nor a network a rider's). Counted only by the community's own limits.
    static let communityUser = ClientGroup.Kind("user", share: .subscriber)
}
