import Basics
import Crypto
import Foundation
import Parsing
import Synchronization

/// APNs' provider authentication token: a JWT signed with ES256 by the team's `.p8` key, `kid` its key id, `iss` the
/// team and `iat` when it was made. Apple accepts a token for an hour and answers a refresh more often than every
/// twenty minutes with `429 TooManyProviderTokenUpdates`, so one token is reused by every request until it is between
/// 30 and 50 minutes old (the age chosen at random per token, so replicas started together do not refresh together), and
/// a token APNs calls expired is replaced only when it is at least 20 minutes old.
public final class ProviderToken: Sendable {
    public enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        /// The key file is no PKCS#8 P-256 private key in PEM (the `.p8` Apple hands out).
        case unreadableKey(path: String)

        public var description: String {
            switch self {
            case .unreadableKey(let path): "PIER_APNS_KEY_FILE=\(path) is not an APNs key (a .p8 file: a P-256 private key in PEM) or cannot be read"
            }
        }
    }

    /// Ages in seconds.
    public static let refreshRange: ClosedRange<Int64> = 30 * 60...50 * 60
    public static let minimumAge: Int64 = 20 * 60

    private struct Current {
        var token: String
        var issuedAt: Int64
        var refreshAt: Int64
    }

    private let key: P256.Signing.PrivateKey
    private let keyID: String
    private let teamID: String
    private let current = Mutex<Current?>(nil)
    private let made = Atomic<Int>(0)

    public init(key: P256.Signing.PrivateKey, keyID: String, teamID: String) {
        self.key = key
        self.keyID = keyID
        self.teamID = teamID
    }

    /// Reads the `.p8` key at `path`.
    public convenience init(keyFile path: String, keyID: String, teamID: String) throws(Failure) {
        guard let pem = try? String(contentsOfFile: path, encoding: .utf8),
            let key = try? P256.Signing.PrivateKey(pemRepresentation: pem)
        else { throw .unreadableKey(path: path) }
        self.init(key: key, keyID: keyID, teamID: teamID)
    }

    /// How many tokens this process has signed (a metric: more than one per half hour means something refreshes too often).
    public var signed: Int { made.load(ordering: .relaxed) }

    /// The token to send now (`now` in seconds since 1970).
    public func token(now: Int64) -> String {
        current.withLock { current in
            if let token = current, now < token.refreshAt, now >= token.issuedAt { return token.token }
            let fresh = make(now: now)
            current = fresh
            return fresh.token
        }
    }

    /// APNs called `token` expired or invalid: the next request gets a new one, unless the one it names is younger than
    /// Apple's 20 minutes (a second refresh would only earn `429 TooManyProviderTokenUpdates`). Whether it was renewed.
    @discardableResult
    public func refused(_ token: String, now: Int64) -> Bool {
        current.withLock { current in
            guard let held = current, held.token == token, now - held.issuedAt >= Self.minimumAge else { return false }
            current = nil
            return true
        }
    }

    private func make(now: Int64) -> Current {
        let header = Base64URL.encode(JSONWriter.make { json in
            json.object { json in
                json.member("alg", "ES256")
                json.member("kid", keyID)
            }
        })
        let claims = Base64URL.encode(JSONWriter.make { json in
            json.object { json in
                json.member("iss", teamID)
                json.member("iat", Int(now))
            }
        })
        let input = header + "." + claims
        // ES256's JWS form is r‖s (64 bytes), which is the signature's raw representation.
        let signature = (try? key.signature(for: Array(input.utf8)).rawRepresentation).map { Base64URL.encode(Array($0)) } ?? ""
        made.add(1, ordering: .relaxed)
        return Current(token: input + "." + signature, issuedAt: now, refreshAt: now + Int64.random(in: Self.refreshRange))
    }
}
