import Basics
import Foundation
import Limits
import UpstreamHTTP

/// What an on-demand upstream (asked per request, through an ``UpstreamGate``) reports about itself: each call's
/// outcome on the status board (`/health`'s `ok` / `failing` and `last_error`), whether the upstream answered
/// this process's last call at all, and the `/health` members every such source shows.
public final class UpstreamReport: Sendable {
    public let source: String
    private let board: SourceStatusBoard?
    /// `nil`: not asked yet.
    private let reachable = SharedValue<Bool?>(nil)

    public init(source: String, board: SourceStatusBoard?) {
        self.source = source
        self.board = board
    }

    /// After a restart: the newest answer the store holds was fetched at `date` (`/health` shows it before
    /// this process asks anything).
    public func stored(lastSuccess date: Date) {
        board?.load([source: SourceHistory(lastSuccess: date, lastOutcome: .ok)])
    }

    /// A call that was answered (`error`: why the answer was not good: a refused key, a rate limit).
    public func answered(error: String? = nil) {
        record(reachable: true, error: error)
    }

    /// A call that failed: reachable when the upstream answered at all (an error status, or — `isAnswer` — an
    /// answer that was not what was asked for), unreachable after a timeout or a transport error. The public
    /// `/health` shows states, not requests: the transport's state without the URL, or that an answer could not be
    /// used — never the error's text, which may carry what the user asked (a URL, a title, a point); the logs
    /// keep it.
    public func failed(_ error: any Error, isAnswer: Bool) {
        var answered = isAnswer
        if case .status? = error as? UpstreamError { answered = true }
        record(reachable: answered, error: (error as? UpstreamError)?.state ?? "sent an answer that could not be used (details in the logs)")
    }

    private func record(reachable: Bool, error: String?) {
        self.reachable.update { $0 = reachable }
        board?.record(source, outcome: error == nil ? .ok : .failed, error: error, at: Date())
    }

    /// `upstream` (`reachable`, `unreachable`, `unknown`), `paused_s`, `budget`, and `quota` (`null` without a quota)
    /// when `withQuota`.
    public func health(limits: UpstreamLimits<ClientGroup>, quota: DailyQuota?, withQuota: Bool = true) -> UpstreamHealth {
        UpstreamHealth(
            upstream: reachable.value.map { $0 ? "reachable" : "unreachable" } ?? "unknown", pausedSeconds: Int(limits.pausedFor.rounded(.up)),
            budget: limits.budget.snapshot(), quota: withQuota ? .some(quota?.snapshot()) : .none)
    }
}
