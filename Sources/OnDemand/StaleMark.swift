import HTTPServer

extension HTTPHeaders {
    /// Marks an answer as the last good one of `source`, served because its upstream failed or could not be asked:
    /// `X-Pier-Stale: <source>` and `Warning: 110` (RFC 7234's "Response is Stale", which caches still read). Every
    /// stale answer is marked here.
    public mutating func markStale(_ source: String) {
        add("X-Pier-Stale", source)
        add("Warning", "110 - \"Response is Stale\"")
    }
}
