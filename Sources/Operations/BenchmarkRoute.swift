import HTTPServer

/// `GET /bench/payload`: a fixed ~12 KB JSON body held in memory, registered only when
/// `PIER_BENCH_ROUTES=on`, so `scripts/bench` can compare pier and the peer server on identical work.
public enum BenchmarkRoute {
    public static let path = "/bench/payload"

    /// The payload: 7 days × 20 routes shaped like `/api/ships`, about 12 KB.
    public static let body: [UInt8] = {
        var days: [String] = []
        for day in 0..<7 {
            var routes: [String] = []
            for route in 0..<20 {
                routes.append("{\"shipName\":\"MS Panta Rhei \(route)\",\"courseNumber\":\"\(day * 100 + route)\"}")
            }
            days.append("{\"date\":\"2026-11-\(23 + day)\",\"routes\":[\(routes.joined(separator: ","))]}")
        }
        let json = "{\"dailyDeployments\":[\(days.joined(separator: ","))],\"lastUpdated\":\"2026-11-23T02:00:41.512Z\","
            + "\"debug\":{\"daysProcessed\":7,\"firstDay\":\"2026-11-23\",\"lastDay\":\"2026-11-29\"},"
            + "\"padding\":\"\(String(repeating: "x", count: 4300))\"}"
        return Array(json.utf8)
    }()

    public static func register(in router: inout Router) {
        // Not a public route: no CORS, so its bytes match the benchmark peer's.
        router.on(.get, path, access: .restricted) { _ in .json(body) }
    }
}
