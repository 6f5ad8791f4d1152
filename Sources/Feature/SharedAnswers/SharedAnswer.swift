/// What a ``SharedAnswers`` service has for a request, for the feature to turn into its HTTP answer (once per
/// answer: the result is kept in memory with it).
public enum SharedAnswer: Sendable {
    /// A stored answer, fresh for `freshFor` more seconds, or `stale` (the upstream could not be asked or failed).
    case answer(StoredAnswer, freshFor: Int, stale: Bool)
    /// Nothing stored and the upstream cannot be asked: `503`, or `429` when this client's share is spent.
    case unavailable(reason: String, retryAfter: Int, clientShare: Bool)
}
