/// Why a join or a message is refused, worded once: the `reason` of a `phx_reply` with `status` `error` (or the
/// `message` of a `system` error), in Supabase Realtime's words where it has them (`Code: text`).
enum RealtimeRefusal: Error, Equatable {
    /// A topic no channel of this server matches (Phoenix's own reply); or a message on a topic not joined.
    case unmatchedTopic
    /// A binding that is not `{event, schema, table, filter?}`.
    case binding(String)
    /// A table nobody publishes (or another schema).
    case table(schema: String, table: String?)
    case filter(String)
    /// Presence, broadcast and private channels are not served (postgres_changes only).
    case presence
    case broadcast
    case privateChannel
    /// A join without any postgres_changes binding: a broadcast or presence channel.
    case nothingToSubscribe
    case tooManyChannels
    case tooManyBindings
    /// The socket's channels, or its client's sockets, hold as many bindings as they may.
    case tooManyBindingsHeld
    case token(RealtimeToken.Problem)

    var reason: String {
        switch self {
        case .unmatchedTopic: "unmatched topic"
        case .binding(let text): "InvalidPostgresChanges: \(text)"
        case .table(let schema, let table):
            "RealtimeDisabledForConfiguration: changes of \(schema).\(table.map { $0.prefix(64) } ?? "(no table)") are not published"
        case .filter(let text): "InvalidFilter: \(text)"
        case .presence: "PresenceNotServed: this server serves postgres_changes only"
        case .broadcast: "BroadcastNotServed: this server serves postgres_changes only"
        case .privateChannel: "PrivateChannelNotServed: this server serves public channels only"
        case .nothingToSubscribe: "BroadcastNotServed: this server serves postgres_changes only; the join named none"
        case .tooManyChannels: "ChannelRateLimitReached: Too many channels"
        case .tooManyBindings: "InvalidPostgresChanges: too many postgres_changes in one channel"
        case .tooManyBindingsHeld: "ChannelRateLimitReached: too many postgres_changes held by this socket or address"
        case .token(let problem): problem.reason
        }
    }
}
