/// Which of Apple's push services a device token belongs to: an app built for the App Store or TestFlight gets
/// production tokens, one run from Xcode development tokens; a token sent to the other service is refused
/// (`400 BadDeviceToken`).
public enum APNsEnvironment: String, Sendable, CaseIterable, Codable {
    case production
    case development

    /// The service's origin.
    public var origin: String {
        switch self {
        case .production: "https://api.push.apple.com"
        case .development: "https://api.sandbox.push.apple.com"
        }
    }
}
