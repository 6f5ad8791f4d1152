import APNsFormat
import Foundation

/// Sends pushes to Apple's push service: token authentication (``ProviderToken``), one HTTP/2 connection per
/// environment kept open (``HTTP2Transport``), and every answer sorted into what the delivery engine does with it
/// (``APNsResult``). Knows nothing of devices, warnings or the outbox.
public final class APNsClient: Sendable {
    public struct Configuration: Sendable {
        /// The app's bundle id (`apns-topic`).
        public var topic: String
        /// Where each environment's pushes go: Apple's hosts, or the test stand-in for both.
        public var origins: [APNsEnvironment: String]
        public var transport: HTTP2Transport.Configuration

        public init(topic: String, origins: [APNsEnvironment: String] = Configuration.apple, transport: HTTP2Transport.Configuration = .init()) {
            self.topic = topic
            self.origins = origins
            self.transport = transport
        }

        public static let apple: [APNsEnvironment: String] = Dictionary(uniqueKeysWithValues: APNsEnvironment.allCases.map { ($0, $0.origin) })
    }

    public let configuration: Configuration
    public let token: ProviderToken
    private let transport: HTTP2Transport
    private let clock: @Sendable () -> Int64

    public init(configuration: Configuration, token: ProviderToken, clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }) {
        self.configuration = configuration
        self.token = token
        self.clock = clock
        transport = HTTP2Transport(configuration: configuration.transport)
    }

    /// Sends `notification` once and says what became of it.
    public func send(_ notification: APNsNotification) async -> APNsResult {
        guard let origin = configuration.origins[notification.environment] else {
            return .rejected(status: 0, reason: "NoOrigin")
        }
        guard APNsNotification.isDeviceToken(notification.deviceToken) else {
            // Never put on the wire: the path would carry whatever it holds.
            return .deviceGone(status: 400, reason: "BadDeviceToken", since: nil)
        }
        let bearer = token.token(now: clock())
        var headers = [
            "authorization: bearer \(bearer)",
            "apns-topic: \(configuration.topic)",
            "apns-push-type: \(notification.pushType)",
            "apns-priority: \(notification.priority)",
            "apns-expiration: \(notification.expiration)",
            "content-type: application/json",
        ]
        if let collapseID = notification.collapseID { headers.append("apns-collapse-id: \(collapseID)") }
        let request = HTTP2Transport.Request(url: "\(origin)/3/device/\(notification.deviceToken)", headers: headers, body: notification.payload)
        switch await transport.post(request) {
        case .failure(let failure):
            switch failure {
            case .transport(let code, _): return .retry(status: 0, reason: "transport \(code)")
            case .notHTTP2: return .retry(status: 0, reason: "not HTTP/2")
            case .stopped: return .retry(status: 0, reason: "stopped")
            }
        case .success(let response):
            let result = APNsResult(status: response.status, apnsID: response.headers["apns-id"], body: response.body)
            if case .rejected(403, let reason) = result, reason == "ExpiredProviderToken" || reason == "InvalidProviderToken" {
                token.refused(bearer, now: clock())
            }
            return result
        }
    }

    /// Closes the connections (the process is ending).
    public func stop() {
        transport.stop()
    }


}
