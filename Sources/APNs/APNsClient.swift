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
        await send([notification])[0]
    }

    /// Sends each of `notifications` once, all at once (as many streams as APNs allows), and says what became of each,
    /// in the same order.
    public func send(_ notifications: [APNsNotification]) async -> [APNsResult] {
        let bearer = token.token(now: clock())
        var results = [APNsResult?](repeating: nil, count: notifications.count)
        var requests: [HTTP2Transport.Request] = []
        var sent: [Int] = []
        for (index, notification) in notifications.enumerated() {
            switch request(for: notification, bearer: bearer) {
            case .send(let request):
                requests.append(request)
                sent.append(index)
            case .refused(let result):
                results[index] = result
            }
        }
        for (index, answer) in zip(sent, await transport.post(requests)) {
            results[index] = result(of: answer, bearer: bearer)
        }
        return results.map { $0 ?? .retry(status: 0, reason: "stopped") }
    }

    /// A notification as it goes on the wire, or what became of it without going.
    private enum Prepared {
        case send(HTTP2Transport.Request)
        case refused(APNsResult)
    }

    private func request(for notification: APNsNotification, bearer: String) -> Prepared {
        guard let origin = configuration.origins[notification.environment] else {
            return .refused(.rejected(status: 0, reason: "NoOrigin"))
        }
        guard APNsNotification.isDeviceToken(notification.deviceToken) else {
            // Never put on the wire: the path would carry whatever it holds.
            return .refused(.deviceGone(status: 400, reason: "BadDeviceToken", since: nil))
        }
        var headers = [
            "authorization: bearer \(bearer)",
            "apns-topic: \(configuration.topic)",
            "apns-push-type: \(notification.pushType)",
            "apns-priority: \(notification.priority)",
            "apns-expiration: \(notification.expiration)",
            "content-type: application/json",
        ]
        if let collapseID = notification.collapseID { headers.append("apns-collapse-id: \(collapseID)") }
        return .send(HTTP2Transport.Request(url: "\(origin)/3/device/\(notification.deviceToken)", headers: headers, body: notification.payload))
    }

    private func result(of answer: Result<HTTP2Transport.Response, HTTP2Transport.Failure>, bearer: String) -> APNsResult {
        switch answer {
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
