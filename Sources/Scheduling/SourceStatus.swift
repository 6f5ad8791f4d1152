import Foundation
import Parsing

/// What `/health` says about one source.
public struct SourceStatus: Sendable, Equatable, Encodable {
    public enum State: String, Sendable, CaseIterable {
        /// The last run stored data and it is fresh.
        case ok
        /// No success yet, or the data is older than the schedule allows.
        case stale
        /// The last run failed or looked wrong; the previous data is still served.
        case failing
        /// An on-demand source nobody has asked for yet: nothing is served, so nothing is stale.
        case idle
        /// Its upstream needs a key that is not configured: its routes answer `503`, nothing is asked.
        case disabled
    }

    public var source: String
    public var state: State
    public var lastSuccess: Date?
    public var ageSeconds: Int?
    public var lastError: String?
    /// The last finished run's outcome, `nil` before the first run.
    public var lastOutcome: FetchOutcome?

    public init(source: String, state: State, lastSuccess: Date?, ageSeconds: Int?, lastError: String?, lastOutcome: FetchOutcome?) {
        self.source = source
        self.state = state
        self.lastSuccess = lastSuccess
        self.ageSeconds = ageSeconds
        self.lastError = lastError
        self.lastOutcome = lastOutcome
    }

    enum CodingKeys: String, CodingKey {
        case state = "status", lastSuccess = "last_success", ageSeconds = "age_s", lastError = "last_error", lastOutcome = "last_outcome"
    }

    /// The members of the source's object in `/health` (its name is the object's key).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(state.rawValue, forKey: .state)
        try container.encodeIfPresent(lastSuccess.map(Timestamp.iso8601), forKey: .lastSuccess)
        try container.encodeIfPresent(ageSeconds, forKey: .ageSeconds)
        try container.encodeIfPresent(lastError, forKey: .lastError)
        try container.encodeIfPresent(lastOutcome?.rawValue, forKey: .lastOutcome)
    }
}

/// The stored facts about a source's runs, from which its status is derived at a given time.
public struct SourceHistory: Sendable, Equatable {
    public var lastSuccess: Date?
    public var lastOutcome: FetchOutcome?
    public var lastError: String?

    public init(lastSuccess: Date? = nil, lastOutcome: FetchOutcome? = nil, lastError: String? = nil) {
        self.lastSuccess = lastSuccess
        self.lastOutcome = lastOutcome
        self.lastError = lastError
    }

    /// - Parameter onDemand: the source is asked when a request needs it (not on a schedule), so having no
    ///   history at all means it was not needed yet (`idle`), not that it is overdue.
    public func status(source: String, staleAfter: Duration, onDemand: Bool = false, now: Date) -> SourceStatus {
        let age = lastSuccess.map { max(0, Int(now.timeIntervalSince($0))) }
        let state: SourceStatus.State
        if onDemand && lastOutcome == nil && lastSuccess == nil {
            state = .idle
        } else if let lastOutcome, lastOutcome != .ok {
            state = .failing
        } else if let age, Double(age) <= staleAfter.seconds {
            state = .ok
        } else {
            state = .stale
        }
        return SourceStatus(
            source: source, state: state, lastSuccess: lastSuccess, ageSeconds: age,
            lastError: lastOutcome == .ok ? nil : lastError, lastOutcome: lastOutcome)
    }
}
