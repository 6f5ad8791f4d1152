/// What the change feed says changed, as every process hears it: a fetched source's data (its job's ``FetchJob/topic``)
/// or a feature's own kind of change (Next Wave's check-ins). Features announce and subscribe with these values, never
/// with the feed's payload, whose format stays ``ChangeFeed``'s.
public struct ChangeTopic: Hashable, Sendable, CustomStringConvertible {
    /// `ships`, `warnings`, `nextwave-checkins`: lower-case letters, digits and dashes (the payload separates the name
    /// from the process with a space).
    public let name: String

    public init(_ name: String) {
        self.name = name
    }

    public var description: String { name }
}

extension FetchJob {
    /// The change announced after a run of this job stored new data.
    public var topic: ChangeTopic { ChangeTopic(source) }
}
