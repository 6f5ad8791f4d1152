/// `PIER_APP_ATTEST`: what an App Attest token changes.
public enum AppAttestMode: String, Sendable, CaseIterable {
    /// Nothing: tokens are neither issued nor read (the default).
    case off
    /// Token holders are budgeted per device; clients without one are counted by address and share the anonymous pool.
    case prefer
    /// A request that would spend an upstream call or a quota unit without a valid token is `401`; what is held stays
    /// open to everyone.
    case require
}
