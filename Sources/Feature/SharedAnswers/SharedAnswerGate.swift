import Basics
import Fetching

/// The gate of one upstream's ``SharedAnswers`` services (several may share it: one budget, one pause),
/// keyed by kind and storage key.
public typealias SharedAnswerGate = UpstreamGate<String, IPAddress, SharedAnswerFetch>

/// What a call through a ``SharedAnswerGate`` gave.
public enum SharedAnswerFetch: Sendable {
    case stored(StoredAnswer)
    case failed(String, retryAfter: Int)
}
