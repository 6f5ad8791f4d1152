import Basics
import HTTPServer

/// `GET /bench/payload`: a fixed ~12 KB JSON body held in memory, registered only when
/// `PIER_BENCH_ROUTES=on`, so `scripts/bench` can compare pier and the peer server on identical work.
public enum BenchmarkRoute {
    public static let path = "/bench/payload"

    /// The payload: 7 days × 20 routes shaped like `/api/ships`, about 12 KB.
    public static let body: [UInt8] = JSONWriter.make { json in
        json.object { json in
            json.member("dailyDeployments", array: { json in
                for day in 0..<7 {
                    json.object { json in
                        json.member("date", "2026-11-\(23 + day)")
                        json.member("routes", array: { json in
                            for route in 0..<20 {
                                json.object { json in
                                    json.member("shipName", "MS Panta Rhei \(route)")
                                    json.member("courseNumber", "\(day * 100 + route)")
                                }
                            }
                        })
                    }
                }
            })
            json.member("lastUpdated", "2026-11-23T02:00:41.512Z")
            json.member("debug", object: { json in
                json.member("daysProcessed", 7)
                json.member("firstDay", "2026-11-23")
                json.member("lastDay", "2026-11-29")
            })
            json.member("padding", String(repeating: "x", count: 4300))
        }
    }

    public static func register(in router: inout Router) {
        // Not a public route: no CORS, so its bytes match the benchmark peer's.
        router.on(.get, path, access: .restricted) { _ in .json(body) }
    }
}
