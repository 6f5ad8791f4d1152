import Foundation

/// An upstream answer as Pier keeps it (in memory and in `upstream_answers`): what it says, the checked body
/// and until when it is fresh.
public struct StoredAnswer: Sendable, Equatable {
    /// What the upstream said.
    public enum Outcome: Int, Sendable {
        /// The answer asked for.
        case found = 200
        /// Nothing of that name (a title that does not exist), worth remembering.
        case missing = 404
        /// The upstream refused the request itself as malformed, worth remembering (its message is the body).
        case refused = 400
    }

    public var outcome: Outcome
    public var body: [UInt8]
    public var fetchedAt: Date
    public var expiresAt: Date

    public init(_ outcome: Outcome, body: [UInt8], fetchedAt: Date, expiresAt: Date) {
        self.outcome = outcome
        self.body = body
        self.fetchedAt = fetchedAt
        self.expiresAt = expiresAt
    }

    /// An answer fetched now, fresh for `ttl`.
    public static func fetched(_ outcome: Outcome = .found, body: [UInt8], ttl: Duration, now: Date = Date()) -> Self {
        Self(outcome, body: body, fetchedAt: now, expiresAt: now.addingTimeInterval(ttl.seconds))
    }
}
