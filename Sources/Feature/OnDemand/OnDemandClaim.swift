import Synchronization

/// A request let past memory for a key, decided on the event loop before any work for it: while one is held, another
/// request for the key joins the work under way (the PostgreSQL read, the upstream call) and is not asked for its
/// share — the share is asked once per upstream call, by the request that makes it. Claimed before the request's task
/// starts, so requests that arrive together (an app's station list, a carrier's NAT) see each other; released when the
/// request is done with it (dropped: whatever way the request ends).
public final class OnDemandClaim: Sendable {
    /// Another request held a claim for the key when this one was taken: this one joins it, so it costs no call and
    /// counts not against its client's requests at once.
    public let joins: Bool
    private let release: @Sendable () -> Void

    init(joins: Bool, release: @escaping @Sendable () -> Void) {
        self.joins = joins
        self.release = release
    }

    deinit { release() }
}

/// What the event loop decided for a request memory could not answer: refused (rendered as the route answers) or let
/// through with its claim.
public enum OnDemandAdmission<Refusal: Sendable>: Sendable {
    case refused(Refusal)
    case admitted(OnDemandClaim)
}

/// The claims held per key (``OnDemandClaim``).
final class OnDemandClaims<Key: Hashable & Sendable>: Sendable {
    private let held = Mutex<[Key: Int]>([:])

    /// Whether a request holds a claim for `key`.
    func isClaimed(_ key: Key) -> Bool {
        held.withLock { $0[key] != nil }
    }

    func claim(_ key: Key) -> OnDemandClaim {
        let joins = held.withLock { held in
            defer { held[key, default: 0] += 1 }
            return held[key] != nil
        }
        return OnDemandClaim(joins: joins) { [self] in
            held.withLock { held in
                let left = held[key, default: 1] - 1
                held[key] = left > 0 ? left : nil
            }
        }
    }
}
