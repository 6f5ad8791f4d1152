/// What became of one push, as the delivery engine acts on it.
public enum APNsResult: Sendable, Equatable {
    /// `200`: APNs took it (its `apns-id`).
    case delivered(apnsID: String)
    /// `429` or `5xx`, or no answer at all: worth another try later (APNs' reason, or the transport's words).
    case retry(status: Int, reason: String)
    /// The token is no longer any good: `410 Unregistered` (with when APNs learnt it, milliseconds since 1970),
    /// `400 BadDeviceToken`, `400 DeviceTokenNotForTopic`. The device is to be forgotten.
    case deviceGone(status: Int, reason: String, since: Int64?)
    /// Anything else (`400 PayloadEmpty`, `403 InvalidProviderToken`, `413`, …): never retried as it is; the reason is
    /// the provider's to fix.
    case rejected(status: Int, reason: String)

    /// The metrics' and logs' word for it.
    public var outcome: String {
        switch self {
        case .delivered: "delivered"
        case .retry: "retry"
        case .deviceGone: "device_gone"
        case .rejected: "rejected"
        }
    }

    /// APNs' reason (`Unregistered`, `TooManyRequests`, …), or the transport's class of failure.
    public var reason: String {
        switch self {
        case .delivered: ""
        case .retry(_, let reason), .deviceGone(_, let reason, _), .rejected(_, let reason): reason
        }
    }

    /// An answer sorted by its status and APNs' reason (the body `{"reason":…,"timestamp":…}`).
    public init(status: Int, apnsID: String?, body: [UInt8]) {
        let answer = APNsAnswer(body)
        switch status {
        case 200:
            self = .delivered(apnsID: apnsID ?? "")
        case 410:
            self = .deviceGone(status: 410, reason: answer.reason ?? "Unregistered", since: answer.timestamp)
        case 400 where answer.reason == "BadDeviceToken" || answer.reason == "DeviceTokenNotForTopic":
            self = .deviceGone(status: 400, reason: answer.reason ?? "", since: nil)
        case 429, 500...599:
            self = .retry(status: status, reason: answer.reason ?? "status \(status)")
        default:
            self = .rejected(status: status, reason: answer.reason ?? "status \(status)")
        }
    }
}
