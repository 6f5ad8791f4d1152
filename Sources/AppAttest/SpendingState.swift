/// What a request that would spend showed, as App Attest sees it — counted in every mode, so that an operator
/// running `monitor` or `prefer` sees what `require` would refuse (`pier_app_attest_spending_requests_total{state}`).
enum SpendingState: String, Sendable, CaseIterable {
    /// A valid token of an attested device.
    case verified
    /// A valid token of a debug device.
    case debug
    /// No token.
    case missing
    case expired
    /// A token this server did not issue.
    case forged
    /// A token of a revoked device or debug device (or of a debug device while debug devices are off).
    case revoked

    /// Whether `require` serves this state's spending.
    var isProven: Bool { self == .verified || self == .debug }
}
