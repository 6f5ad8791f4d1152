import Basics
import HTTPServer

/// What Realtime asks of the feature whose project it serves: whether a socket's `apikey` is the project's public key,
/// what a channel's access token is worth, and who an upgrade counts as. Realtime knows no secret and no user.
public protocol RealtimeAccess: Sendable {
    /// The upgrade's answer when `key` (the `apikey` query parameter, or header) is not the project's public key, in
    /// the gateway's words; `nil` admits it.
    func refusal(key: String?) -> HTTPResponse?
    /// `token` (a join's `access_token`, or a refresh) judged.
    func check(token: String) -> RealtimeToken
    /// Who `request` counts as for the per-client socket cap (the trusted-proxy rule's client).
    func client(of request: HTTPRequest) -> IPAddress
}
