/// `PIER_APP_ATTEST`: what an App Attest token changes.
public enum AppAttestMode: String, Sendable, CaseIterable {
    /// Nothing: tokens are neither issued nor read (the default).
    case off
    /// Tokens are issued and every spending request's token is counted by its state
    /// (`pier_app_attest_spending_requests_total`), but nothing changes: every client is budgeted by its address and
    /// nothing is refused — the step before `prefer` and `require`, to see what they would do.
    case monitor
    /// Token holders are budgeted per device; clients without one are counted by address and share the anonymous pool.
    case prefer
    /// A request that would spend an upstream call or a quota unit without a valid token is `401`; what is held stays
    /// open to everyone.
    case require
}
