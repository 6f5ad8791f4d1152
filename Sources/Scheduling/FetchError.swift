import Foundation
import Postgres
import UpstreamHTTP

/// Why a fetch run did not store new data. Each case maps to an outcome in `fetch_runs`.
public enum FetchError: Error, Sendable, CustomStringConvertible {
    case upstream(UpstreamError)
    /// The body could not be read as the expected document: why, in the parser's words (Scheduling knows no parser).
    case unreadable(String, url: String)
    /// The page parsed but looks wrong; `reason` says which check failed.
    case suspect(String)
    /// Part of the run failed after the rest was stored (one lake of many): `stored` items are new and are
    /// announced to other processes like a success's; `suspect` when a failure was an answer of the wrong shape.
    case partial(String, stored: Int, suspect: Bool)
    case timedOut(seconds: Double)
    case database(PostgresError)
    /// Anything else a run threw.
    case other(String)

    public var outcome: FetchOutcome {
        switch self {
        case .suspect, .partial(_, _, suspect: true): .suspect
        default: .failed
        }
    }

    /// Whether the run stored new data before it failed (other processes should load it).
    public var storedSomething: Bool {
        if case .partial(_, let stored, _) = self { return stored > 0 }
        return false
    }

    public var description: String {
        switch self {
        case let .upstream(error): "\(error)"
        case let .unreadable(reason, url): "\(url): \(reason)"
        case let .suspect(reason): "suspect scrape: \(reason)"
        case let .partial(reason, stored, suspect): "\(suspect ? "suspect answers: " : "")\(reason); \(stored) stored"
        case let .timedOut(seconds): "the run took longer than \(seconds.formatted(.number.precision(.fractionLength(0...1)))) s"
        case let .database(error): "database: \(error)"
        case let .other(message): message
        }
    }

    /// Wraps any error a run threw.
    public init(_ error: any Error) {
        switch error {
        case let error as FetchError: self = error
        case let error as UpstreamError: self = .upstream(error)
        case let error as PostgresError: self = .database(error)
        default: self = .other("\(error)")
        }
    }
}
