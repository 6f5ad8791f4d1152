import Basics
import Foundation
import HTTPServer
import Parsing

/// `GET /v1/water-levels?lake=Zürichsee&days=40`: a lake's level per day, as the Next Wave app's analytics screen
/// reads its history (`[{"date": "2026-11-25", "level_m": 405.93}, …]`, ascending, at most `days` days ending today
/// in Zurich). Answers are made from the history held in memory and kept ready (a bounded LRU: lakes × days), dropped
/// when a scrape lands or the day turns.
public struct WaterLevelRoutes: Sendable {
    public static let path = "/v1/water-levels"

    struct Ready: Sendable {
        var response: CachedResponse
        var day: CalendarDate
    }

    let service: LakeService
    let maxAge: Int
    /// Ready answers by `lake|days`; at most 32 lakes × 366 days could be asked, so memory bounds it, not the keys.
    let ready = LRUCache<String, Ready>(budgetBytes: 4 << 20)

    public init(service: LakeService, maxAge: Int = 300) {
        self.service = service
        self.maxAge = maxAge
        service.changes.observe { [ready] in ready.removeAll() }
    }

    public func register(in router: inout Router) {
        router.on(.get, Self.path) { [self] request in
            let query = try WaterLevelQuery(request.query)
            return try answer(query, now: Date()).response(for: request)
        }
    }

    func answer(_ query: WaterLevelQuery, now: Date) throws(HTTPError) -> CachedResponse {
        guard let snapshot = service.snapshot else {
            throw HTTPError(.serviceUnavailable, "no lake data yet", headers: ["Retry-After": "60"])
        }
        guard let lake = LakeNames.meteoNewsName(query.lake, among: snapshot.readings.map(\.name)) else {
            throw HTTPError(.notFound, "no lake by that name: /api/water-temp lists the lakes (MeteoNews' names and the Next Wave app's)")
        }
        let today = service.today(now)
        let key = "\(lake)|\(query.days)"
        if let held = ready.peek(key), held.day == today { return held.response }
        let levels = service.history.levels(of: lake, from: today.adding(days: 1 - query.days), through: today)
        let body = "[" + levels.map { "{\"date\":\"\($0.day)\",\"level_m\":\($0.metres)}" }.joined(separator: ",") + "]"
        let response = CachedResponse(json: Array(body.utf8), headers: ["Cache-Control": "public, max-age=\(maxAge)"])
        ready.set(Ready(response: response, day: today), for: key, cost: body.utf8.count + 256)
        return response
    }
}
