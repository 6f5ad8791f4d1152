import Foundation
import Synchronization

/// The latest known run history of every source, for `/health` and the scheduler.
///
/// Updated by this process's runs as they finish and reloaded from `fetch_runs` now and then, so that runs
/// made by another replica show up too. Reads never touch the database.
public final class SourceStatusBoard: Sendable {
    private struct State {
        var sources: [(name: String, staleAfter: Duration)] = []
        /// Sources asked when a request needs them rather than on a schedule (`idle` until first asked).
        var onDemand: Set<String> = []
        /// Sources whose upstream key is not configured.
        var disabled: Set<String> = []
        var histories: [String: SourceHistory] = [:]
        var version = 0
    }

    private let state = Mutex(State())

    public init(sources: [(name: String, staleAfter: Duration)] = [], onDemand: Set<String> = []) {
        state.withLock { state in
            state.sources = sources
            state.onDemand = onDemand
        }
    }

    /// Adds a source (features register theirs while they are made; `/health` lists them in that order).
    /// - Parameter onDemand: asked when a request needs it, not on a schedule: `idle` until first asked.
    /// - Parameter disabled: its upstream needs a key that is not configured (`disabled` in `/health`).
    public func register(_ name: String, staleAfter: Duration, onDemand: Bool = false, disabled: Bool = false) {
        state.withLock { state in
            state.sources.removeAll { $0.name == name }
            state.sources.append((name, staleAfter))
            if onDemand { state.onDemand.insert(name) }
            if disabled { state.disabled.insert(name) } else { state.disabled.remove(name) }
            state.version += 1
        }
    }

    /// Sources in the order `/health` lists them, with how old their data may get.
    public var sources: [(name: String, staleAfter: Duration)] { state.withLock { $0.sources } }

    /// Grows by one with every change, so readers can cache what they derived from the board.
    public var version: Int { state.withLock { $0.version } }

    public func history(_ source: String) -> SourceHistory {
        state.withLock { $0.histories[source] ?? SourceHistory() }
    }

    /// Every configured source's status at `now`.
    public func statuses(now: Date = Date()) -> [SourceStatus] {
        let (sources, onDemand, disabled, histories) = state.withLock { ($0.sources, $0.onDemand, $0.disabled, $0.histories) }
        return sources.map { Self.status(of: $0, onDemand: onDemand, disabled: disabled, histories: histories, now: now) }
    }

    /// One source's status at `now` (`nil`: not on the board) — `/metrics` asks it per series, so it works out that
    /// source alone.
    public func status(of name: String, now: Date = Date()) -> SourceStatus? {
        state.withLock { state in
            state.sources.first { $0.name == name }.map {
                Self.status(of: $0, onDemand: state.onDemand, disabled: state.disabled, histories: state.histories, now: now)
            }
        }
    }

    private static func status(
        of source: (name: String, staleAfter: Duration), onDemand: Set<String>, disabled: Set<String>, histories: [String: SourceHistory], now: Date
    ) -> SourceStatus {
        guard !disabled.contains(source.name) else {
            return SourceStatus(source: source.name, state: .disabled, lastSuccess: nil, ageSeconds: nil, lastError: nil, lastOutcome: nil)
        }
        return (histories[source.name] ?? SourceHistory()).status(
            source: source.name, staleAfter: source.staleAfter, onDemand: onDemand.contains(source.name), now: now)
    }

    /// Whether `source` is asked when a request needs it rather than on a schedule.
    public func isOnDemand(_ source: String) -> Bool {
        state.withLock { $0.onDemand.contains(source) }
    }

    /// Records a finished run of this process.
    public func record(_ source: String, outcome: FetchOutcome, error: String?, at date: Date) {
        state.withLock { state in
            var history = state.histories[source] ?? SourceHistory()
            history.lastOutcome = outcome
            history.lastError = error
            if outcome == .ok { history.lastSuccess = max(history.lastSuccess ?? date, date) }
            state.histories[source] = history
            state.version += 1
        }
    }

    /// Replaces what the board knows of each source in `histories` (what `fetch_runs` holds); sources without
    /// fetch runs (the on-demand stationboard) keep what this process recorded. A success this process recorded
    /// after `histories` was read (the read raced the run's last write) is kept, not rolled back.
    public func load(_ histories: [String: SourceHistory]) {
        state.withLock { state in
            var merged = state.histories
            for (source, loaded) in histories {
                var next = loaded
                if let current = merged[source], let mine = current.lastSuccess,
                    mine.timeIntervalSince(loaded.lastSuccess ?? .distantPast) > 1, current.lastOutcome == .ok
                {
                    next.lastSuccess = mine
                    next.lastOutcome = .ok
                    next.lastError = nil
                }
                merged[source] = next
            }
            guard state.histories != merged else { return }
            state.histories = merged
            state.version += 1
        }
    }
}
