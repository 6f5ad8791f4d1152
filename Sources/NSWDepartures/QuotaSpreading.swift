/// How long a stop's answer stays fresh so that the key's daily quota lasts the day: with `watched` stops each
/// refreshed once per period, the calls left must cover the seconds left until the quota resets —
/// `max(base, watched × seconds left / calls left)` (the contract's "TTL = max(30 s, watched stops × 86,400 s /
/// quota left)", with the day's remaining seconds, so a busy morning stretches less than a busy evening).
enum QuotaSpreading {
    static func ttl(base: Double, watched: Int, quotaLeft: Int, secondsLeftToday: Double) -> Double {
        guard watched > 0 else { return base }
        return max(base, Double(watched) * max(1, secondsLeftToday) / Double(max(1, quotaLeft)))
    }
}
