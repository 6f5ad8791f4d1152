import AnswerCaching
import Basics
import Foundation
import HTTPServer
import Parsing

/// `GET /v1/water-levels?lake=Zürichsee&days=40`: a lake's level per day, as the Next Wave app's analytics screen
/// reads its history (`[{"date": "2026-11-25", "level_m": 405.93}, …]`, ascending, at most `days` days ending today
/// in Zurich). Answers are made from the history held in memory and kept ready (an ``AnswerCache`` by lake, days and
/// day), dropped when a scrape lands; a new day asks for new keys.
public struct WaterLevelRoutes: Sendable {
    public static let path = "/v1/water-levels"

    /// A ready answer's lake (MeteoNews' name), its day count and the Zurich day it ends.
    struct ReadyKey: Hashable, Sendable {
        let lake: String
        let days: Int
        let day: CalendarDate
    }

    let service: LakeService
    let maxAge: Int
    /// Ready answers: 32 lakes × 366 day counts could be asked, so bytes bound it, not the keys.
    let ready = AnswerCache<ReadyKey>(entries: 4096, bytes: 4 << 20)

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
        let key = ReadyKey(lake: lake, days: query.days, day: today)
        if let held = ready.answer(for: key) { return held }
        let levels = service.history.levels(of: lake, from: today.adding(days: 1 - query.days), through: today)
        let body = JSONWriter.make(reservingCapacity: levels.count * 40) { json in
            json.array { json in
                for level in levels {
                    json.object { json in
                        json.member("date", "\(level.day)")
                        // As Swift describes it (`406.0`): the answer's numbers as they always came.
                        json.key("level_m")
                        json.number(described: level.metres)
                    }
                }
            }
        }
        let response = CachedResponse(json: body, headers: ["Cache-Control": "public, max-age=\(maxAge)"])
        ready.keep(response, for: key, keyBytes: lake.utf8.count)
        return response
    }
}
