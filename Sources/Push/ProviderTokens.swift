import APNs
import Synchronization

/// One provider token per signing key, shared by every app that signs with it: Apple wants a key's token reused, not
/// one per connection (a refresh more often than every 20 minutes is refused).
final class ProviderTokens: Sendable {
    private struct KeyName: Hashable {
        var file: String
        var id: String
        var team: String
    }

    private let tokens = Mutex<[KeyName: ProviderToken]>([:])

    func token(for key: PushSettings.Key) throws -> ProviderToken {
        let name = KeyName(file: key.file, id: key.id, team: key.team)
        if let known = tokens.withLock({ $0[name] }) { return known }
        let made = try ProviderToken(keyFile: key.file, keyID: key.id, teamID: key.team)
        return tokens.withLock { tokens in
            if let known = tokens[name] { return known }
            tokens[name] = made
            return made
        }
    }

    /// Tokens signed, every key's.
    var signed: Int { tokens.withLock { $0.values.reduce(0) { $0 + $1.signed } } }
}
