import Foundation

/// An upstream answer as a store keeps it: the checked bytes and when they were fetched.
public struct StoredBody: Sendable {
    public var body: [UInt8]
    public var fetchedAt: Date

    public init(body: [UInt8], fetchedAt: Date) {
        self.body = body
        self.fetchedAt = fetchedAt
    }
}
