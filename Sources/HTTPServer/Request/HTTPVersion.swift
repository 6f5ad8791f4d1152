/// The protocol version of a request; only 1.0 and 1.1 are served.
public enum HTTPVersion: Sendable, Equatable {
    case http1_0
    case http1_1
}
