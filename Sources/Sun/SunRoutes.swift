import AnswerCaching
import Feature
import Foundation
import Geography
import HTTPServer
import Parsing

/// `GET /v1/sun?lat=..&lon=..&date=..`: sunrise-sunset.org's answer, computed here. Pure: no store, no
/// upstream, no state but the clock (for "today").
public struct SunRoutes: Sendable {
    public static let path = "/v1/sun"
    /// A dated answer never changes.
    static let datedMaxAge = 86_400

    private let now: @Sendable () -> Date
    /// Dated answers by the day and point they are for: they never change, and apps ask for the same few points (Next
    /// Wave asks for one point for every lake), so a repeat costs a lookup instead of nine solved events. Keyed by
    /// what was asked, not how it was written (`47.0` and `47.00` are one answer); 4,096 answers of about 600 bytes.
    let dated = AnswerCache<DatedKey>(entries: 4096, bytes: 4 << 20)

    /// Today's answers by point, each for the rest of its second: its `max-age` counts down to UTC midnight by the
    /// second, so an answer is right until the next whole second — and every request in that second for the point
    /// shares it instead of solving nine events again.
    let today = AnswerCache<DatedKey>(entries: 1024, bytes: 1 << 20)

    /// A dated answer's day and point.
    struct DatedKey: Hashable, Sendable {
        let day: CalendarDate
        let latitude: Double
        let longitude: Double
    }

    public init(now: @escaping @Sendable () -> Date = Date.init) {
        self.now = now
    }

    public func register(in router: inout Router) {
        router.on(.get, Self.path) { [self] request in try answer(request) }
    }

    func answer(_ request: HTTPRequest) throws -> HTTPResponse {
        let query = request.query
        // sunrise-sunset.org names the longitude `lng`; Pier's other routes say `lon`. Both are accepted.
        let givesLng = query.contains(literal: "lng")
        let point = try Coordinate(query, longitude: givesLng && !query.contains(literal: "lon") ? "lng" : "lon")
        // Both given: `lon` wins, but a bad `lng` is still a bad request.
        if givesLng, query.contains(literal: "lon") { _ = try Coordinate(query, longitude: "lng") }
        if let text = query[literal: "date"] {
            guard let given = CalendarDate(text) else {
                throw HTTPError(.badRequest, "date must be a calendar date as YYYY-MM-DD, not '\(text.prefix(40))'")
            }
            let key = DatedKey(day: given, latitude: point.latitude, longitude: point.longitude)
            if let cached = dated.answer(for: key) { return cached.response(for: request) }
            let body = SunResponse.body(SunTimes(date: given, latitude: point.latitude, longitude: point.longitude))
            let answer = CachedResponse(json: body, headers: ["Cache-Control": "public, max-age=\(Self.datedMaxAge)"])
            dated.keep(answer, for: key)
            return answer.response(for: request)
        }
        // "Today" in UTC, as the upstream's default; it is another day at the next UTC midnight. Its max-age
        // shrinks by the second, so this answer is kept for the rest of its second.
        let instant = now()
        let day = Int(instant.timeIntervalSince1970.rounded(.down)) / 86_400
        let key = DatedKey(day: CalendarDate(dayNumber: day), latitude: point.latitude, longitude: point.longitude)
        if let cached = today.answer(for: key, now: instant) { return cached.response(for: request) }
        let maxAge = max(1, (day + 1) * 86_400 - Int(instant.timeIntervalSince1970.rounded(.up)))
        let body = SunResponse.body(SunTimes(date: key.day, latitude: point.latitude, longitude: point.longitude))
        let answer = CachedResponse(json: body, headers: ["Cache-Control": "public, max-age=\(maxAge)"])
        // Right while the second rounded up is the same (the max-age above counts from it).
        today.keep(answer, for: key, until: Date(timeIntervalSince1970: instant.timeIntervalSince1970.rounded(.up)))
        return answer.response(for: request)
    }
}
