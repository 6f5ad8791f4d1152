
/// `Retry-After` as Pier sends it when an upstream cannot be asked: whole seconds, at least 1, at most an hour.
public enum RetryAfter {
    /// The longest wait sent (a budget of zero never refills; an upstream may ask for more).
    public static let limit = 3600

    /// `wait` seconds (infinity: never) as a `Retry-After` value.
    public static func seconds(_ wait: Double) -> Int {
        wait.isFinite ? min(limit, max(1, Int(wait.rounded(.up)))) : limit
    }
}
