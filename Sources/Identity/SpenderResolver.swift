import Basics
import HTTPServer

/// One link of the identity chain (``Spenders``): what a feature contributes to who a request counts as — App Attest's
/// token makes it its device; next a debug device or an account. Asked only when a request would spend, in the order
/// the features are listed, each with what the links before it decided.
public protocol SpenderResolver: Sendable {
    /// Who `request` counts as, given `spender`: what the links before this one decided (at first its address's).
    func spender(of request: HTTPRequest, so spender: Spender) -> Spender
}
