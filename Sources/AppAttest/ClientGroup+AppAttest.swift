import Basics

/// The kinds of callers App Attest counts: an attested app instance as itself, a debug device an operator named, and —
/// where the operator prefers attested devices — every client without a token in one pool. Declared here, not in
/// Basics: a feature names its own kinds (``AppAttestFeature/clientKinds``).
extension ClientGroup.Kind {
    /// One attested app instance (its key id).
    public static let device = ClientGroup.Kind(
        "device", share: .subscriber, isProven: true, spentSentence: "this device has used its share of {upstream}'s daily quota")
    /// One debug device an operator named (the Simulator, CI, an extension: App Attest's debug tokens).
    public static let debugDevice = ClientGroup.Kind("debug", share: .subscriber, isProven: true)
    /// Every client without a device's proof, together.
    public static let anonymous = ClientGroup.Kind(
        "anonymous", share: .pool,
        spentSentence: "clients without an App Attest token have used their pool of {upstream}'s daily quota (an attested app has a share of its own)")
}

extension ClientGroup {
    /// The group of one device: `id` is its key id (SHA-256 of its public key), of which 128 bits (32 hex digits)
    /// identify it.
    public init(device id: [UInt8]) {
        let bytes = (0..<16).map { $0 < id.count ? id[$0] : 0 }
        self.init(kind: .device, name: bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined())
    }

    /// The group of the debug device `name` (``isDebugName(_:)``).
    public init(debug name: String) {
        self.init(kind: .debugDevice, name: name)
    }

    /// The pool every client without a device's proof shares.
    public static let anonymous = ClientGroup(kind: .anonymous, name: nil)

    /// 1 to 64 letters, digits, `.`, `_` or `-` (safe in CIDR-like text, SQL arrays and metrics).
    public static func isDebugName(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x2E || byte == 0x5F || byte == 0x2D
        }
    }
}
