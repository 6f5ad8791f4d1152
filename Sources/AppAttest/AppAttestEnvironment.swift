/// Where an app's App Attest keys were made: the App Store's and TestFlight's `production`, or `development` (builds
/// run from Xcode). Each writes its own aaguid into the authenticator data.
public enum AppAttestEnvironment: String, Sendable, CaseIterable {
    case production
    case development

    /// `appattest` and seven zero bytes, or `appattestdevelop`.
    public var aaguid: [UInt8] {
        switch self {
        case .production: Array("appattest".utf8) + Array(repeating: 0, count: 7)
        case .development: Array("appattestdevelop".utf8)
        }
    }
}
