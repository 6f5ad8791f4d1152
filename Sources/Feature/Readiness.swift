/// A condition without which the service cannot serve (PostgreSQL answering): `/health` names its state under
/// ``name`` ahead of the sources, and answers `503` while it is not ready. A feature that watches such a condition
/// offers it (``Feature/readiness``); a failing upstream is no such condition — its source is reported stale instead.
public struct Readiness: Sendable {
    /// The `/health` member (`database`).
    public let name: String
    /// What that member says while ready (`ok`), and while not (`unreachable`).
    public let states: (ready: String, notReady: String)
    /// Asked on every `/health`: reads remembered state, never waits.
    public let isReady: @Sendable () -> Bool

    public init(name: String, states: (ready: String, notReady: String), isReady: @escaping @Sendable () -> Bool) {
        self.name = name
        self.states = states
        self.isReady = isReady
    }
}
