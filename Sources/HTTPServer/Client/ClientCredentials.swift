import Basics

/// How a request that shows a credential counts as someone other than its address (a device that proved itself a
/// genuine app instance), and what a request without one may do. The executable sets one on ``ClientAddress``; the
/// server core knows no credential. Asked only when a request would spend (``HTTPRequest/spender``). A class: every
/// request carries the server's ``ClientAddress``, and a reference keeps that copy two words.
public protocol ClientCredentials: AnyObject, Sendable {
    /// Who `request`, from `address`, counts as.
    func client(of request: HTTPRequest, address: IPAddress) -> Client
}
