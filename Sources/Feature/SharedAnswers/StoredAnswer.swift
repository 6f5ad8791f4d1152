import Foundation

/// An upstream answer as Pier keeps it (in memory and in `upstream_answers`): the status Pier answers with
/// (`200`, or one remembered, such as Wikipedia's `404` for a title that does not exist), the checked body and
/// until when it is fresh.
public struct StoredAnswer: Sendable, Equatable {
    public var status: Int
    public var body: [UInt8]
    public var fetchedAt: Date
    public var expiresAt: Date

    public init(status: Int, body: [UInt8], fetchedAt: Date, expiresAt: Date) {
        self.status = status
        self.body = body
        self.fetchedAt = fetchedAt
        self.expiresAt = expiresAt
    }
}
