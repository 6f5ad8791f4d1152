import Basics
import Foundation
import Identity
import Limits
import Logging
import Scheduling

/// The one rule by which a request may spend an upstream's budget and quota, whether its answer is kept for everyone
/// (``OnDemandCore``) or for nobody (``spend(for:units:retryAfterFailure:now:_:)``: a cruise read from a pasted booking):
/// each refusal counted in `pier_upstream_refusals_total` and said as ``OnDemandUnavailable``, hence answered with the
/// same status and `Retry-After` everywhere.
extension OnDemandUpstream {
    /// Decided from memory before any work: `groups` would be refused for their own share even after waiting their turn,
    /// have as many requests under way as they may, or have spent their share of the day. Counted; `nil`: go on.
    func refusalBeforeWork(_ groups: [ClientGroup], units: Int, now: Date) -> OnDemandUnavailable? {
        if let early = limits.precheck(groups) {
            refusals.count(early.refusal.rawValue, group: groups[early.by ?? 0].kind)
            return OnDemandUnavailable(decided: .limits(early.refusal), upstream: name, retryAfter: RetryAfter.seconds(early.retryAfter))
        }
        if let quota, let spent = quota.spentGroup(groups, units: units, now: now) {
            let kind = groups[spent.index].kind
            refusals.count("daily_share", group: kind)
            return OnDemandUnavailable(decided: .dailyShare(kind), upstream: name, retryAfter: RetryAfter.seconds(Double(spent.retryAfter)))
        }
        return nil
    }

    /// Counts a request of `groups` under way (``UpstreamLimits/start(_:)``), or the refusal when one of them has as many
    /// as it may. Each `nil` is followed by ``UpstreamLimits/finished(_:)``.
    func start(_ groups: [ClientGroup]) -> OnDemandUnavailable? {
        guard !limits.start(groups) else { return nil }
        refusals.count(UpstreamRefusal.concurrency.rawValue, group: groups[limits.busiest(groups) ?? 0].kind)
        return OnDemandUnavailable(decided: .limits(.concurrency), upstream: name, retryAfter: 1)
    }

    /// A call the limits did not admit (the budget, a share, a pause), counted and said.
    func unavailable(_ refused: UpstreamLimits<ClientGroup>.Refused, groups: [ClientGroup]) -> OnDemandUnavailable {
        let counted = refusals.refused(refused.refusal, retryAfter: refused.retryAfter, group: refused.by.map { groups[$0].kind }, upstream: name)
        return OnDemandUnavailable(counted.reason, retryAfter: counted.retryAfter, cause: counted.clientShare ? .clientShare : .upstream)
    }

    /// Takes `units` of today's quota for `groups` (`reserved`: the call may use the reserve); `nil` when taken, else why
    /// not (counted).
    func take(_ quota: DailyQuota, units: Int, groups: [ClientGroup], reserved: Bool, retryAfterFailure: Int, now: Date) async -> OnDemandUnavailable? {
        switch await quota.take(units: units, groups: groups, reserved: reserved, now: now) {
        case .granted:
            return nil
        case .spent(let retryAfter, let reserved):
            refusals.count(reserved ? "reserve" : "daily_quota")
            let why = reserved
                ? "what is left of \(name)'s daily quota for this server is kept for answers many users ask for"
                : "\(name)'s daily quota for this server is spent\(settings.resets)"
            return OnDemandUnavailable(why, retryAfter: RetryAfter.seconds(Double(retryAfter)))
        case .shareSpent(let index, let retryAfter):
            refusals.count("daily_share", group: groups[index].kind)
            return OnDemandUnavailable(groups[index].kind.shareSpent(upstream: name), retryAfter: RetryAfter.seconds(Double(retryAfter)), cause: .clientShare)
        case .unknown:
            refusals.count("quota_unknown")
            return OnDemandUnavailable("\(name)'s daily quota could not be counted (the database did not answer)", retryAfter: retryAfterFailure)
        }
    }

    /// One call on behalf of `client` whose answer is kept for nobody (nothing to join, nothing to serve stale): a
    /// credential the operator requires, the client's share (before any work), its requests at once, a token of the
    /// budget (waiting its turn as every request does) and `units` of today's quota — then `call`, counted in
    /// `pier_upstream_requests_total`. Refused: why, as every route of the engine says it (``OnDemandUnavailable/httpError(_:)``).
    /// `retryAfterFailure`: said when the quota could not be counted.
    public func spend<Value: Sendable>(
        for client: Spender?, units: Int = 1, retryAfterFailure: Int, now: Date = Date(), _ call: () async -> Value
    ) async -> Result<Value, OnDemandUnavailable> {
        if let refusal = client?.refusal {
            return .failure(OnDemandUnavailable(refusal.refused(), retryAfter: retryAfterFailure, cause: .credential))
        }
        let groups = client?.groups ?? []
        if let refused = refusalBeforeWork(groups, units: units, now: now) { return .failure(refused) }
        if let refused = start(groups) { return .failure(refused) }
        defer { limits.finished(groups) }
        if let refused = await limits.admitWaiting(groups) { return .failure(unavailable(refused, groups: groups)) }
        // An answer nobody else asks for cannot be popular: the reserve is for the engine's shared answers, and an
        // upstream only such calls use leaves it to them.
        if let quota, let spent = await take(quota, units: units, groups: groups, reserved: true, retryAfterFailure: retryAfterFailure, now: now) {
            return .failure(spent)
        }
        calls?.increment()
        return .success(await call())
    }

    /// The upstream refused this server (its key, its plan, a model: ``UpstreamReply/refused(message:detail:pause:)``), as
    /// every caller takes it: calls pause for everyone for `pause` seconds (else ``Settings/pauseAfterRefusal``), the
    /// operator reads `detail` in the log at error and in `/health`, and the request is told `message` with the pause as
    /// `Retry-After`.
    public func refused(message: String, detail: String, pause: Double?, report: UpstreamReport, logger: Logger) -> OnDemandUnavailable {
        let seconds = pause ?? Double(settings.pauseAfterRefusal)
        limits.pause(seconds: seconds)
        logger.error("\(name) refused this server's requests; pausing calls", metadata: ["why": "\(detail)", "pause_s": "\(Int(seconds))"])
        report.answered(error: "\(detail) (pausing \(Int(seconds)) s)")
        return OnDemandUnavailable(message, retryAfter: RetryAfter.seconds(seconds))
    }

    /// The upstream is throttling this server (``UpstreamReply/throttled(message:detail:retryAfter:)``): calls pause for
    /// what it asked (else ``Settings/pauseAfterThrottle``), 1 s to ``RetryAfter/limit``; the same for everyone else.
    public func throttled(message: String, detail: String, retryAfter asked: Int?, report: UpstreamReport, logger: Logger) -> OnDemandUnavailable {
        let seconds = min(RetryAfter.limit, max(1, asked ?? settings.pauseAfterThrottle))
        limits.pause(seconds: Double(seconds))
        logger.warning("\(name) is rate-limiting this server; pausing calls", metadata: ["pause_s": "\(seconds)"])
        report.answered(error: "\(detail) (pausing \(seconds) s)")
        return OnDemandUnavailable(message, retryAfter: seconds)
    }

    /// A call that failed, was throttled or refused (`pier_upstream_failures_total`).
    public func countFailure() {
        failures?.increment()
    }
}
