import Basics
import Foundation
import HTTPServer
import Identity
import Realtime
import SupabaseAuth

/// Realtime's questions answered as the community's other routes answer them: the `apikey` must be the project's
/// public key (refused at the upgrade in the gateway's words, before a socket exists), a channel's token one of the
/// project's for `anon` or `authenticated`, and a socket counts as the trusted-proxy rule's client.
struct CommunityRealtimeAccess: RealtimeAccess {
    let community: CommunityService
    let spenders: Spenders

    func refusal(key: String?) -> HTTPResponse? {
        do {
            _ = try community.caller(of: .init(apiKey: key, authorization: .none))
            return nil
        } catch {
            var headers = HTTPHeaders()
            headers.set("Cache-Control", "no-store")
            return .json(JSONWriter.make { $0.object { $0.member("message", error.message) } }, status: .unauthorized, headers: headers)
        }
    }

    func check(token: String) -> RealtimeToken {
        community.realtimeToken(token)
    }

    func client(of request: HTTPRequest) -> IPAddress {
        spenders.address(of: request)
    }
}

extension CommunityService {
    /// A Realtime channel's access token judged as Supabase Realtime judges it (its messages need the expiry's age).
    func realtimeToken(_ token: String, now: Date = Date()) -> RealtimeToken {
        do {
            let claims = try jwt.verify(Substring(token), now: now)
            guard claims.role == "anon" || claims.role == "authenticated" else { return .refused(.role) }
            return .valid(expires: claims.expires)
        } catch {
            switch error {
            case .expired:
                let expired = (try? jwt.verify(Substring(token), now: .distantPast))?.expires ?? Int64(now.timeIntervalSince1970)
                return .refused(.expired(secondsAgo: max(0, Int64(now.timeIntervalSince1970) - expired)))
            case .malformed: return .refused(.malformed)
            case .algorithm, .signature: return .refused(.signature)
            }
        }
    }
}
