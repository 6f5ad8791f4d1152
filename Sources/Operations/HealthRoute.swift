import Glibc
import HTTPServer
import Synchronization

/// `GET /health`: whether the service can serve, for operators and uptime checks.
///
/// The body changes at most once a second (uptime), so it is encoded once per second and served as bytes.
public final class HealthRoute: Sendable {
    public static let path = "/health"

    private let version: String
    private let startedAt: Int
    private let cache = Mutex<(second: Int, body: [UInt8])>((-1, []))

    public init(version: String) {
        self.version = version
        startedAt = Self.monotonicSeconds()
    }

    public func register(in router: inout Router) {
        router.on(.get, Self.path) { [self] _ in response() }
    }

    public func report() -> HealthReport {
        HealthReport(status: "ok", version: version, uptimeSeconds: Self.monotonicSeconds() - startedAt)
    }

    func response() -> HTTPResponse {
        let now = Self.monotonicSeconds()
        let body = cache.withLock { cache -> [UInt8] in
            if cache.second != now {
                cache = (now, Array(report().json.utf8))
            }
            return cache.body
        }
        return .json(body, headers: ["Cache-Control": "no-store", "Access-Control-Allow-Origin": "*"])
    }

    private static func monotonicSeconds() -> Int {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Int(ts.tv_sec)
    }
}
