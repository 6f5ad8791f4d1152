import Feature
import Fetching
import Foundation
import HTTPServer

/// `GET /v1/sun?lat=..&lon=..&date=..`: sunrise-sunset.org's answer, computed here. Pure: no store, no
/// upstream, no state but the clock (for "today").
public struct SunRoutes: Sendable {
    public static let path = "/v1/sun"
    /// A dated answer never changes.
    static let datedMaxAge = 86_400

    private let now: @Sendable () -> Date

    public init(now: @escaping @Sendable () -> Date = Date.init) {
        self.now = now
    }

    public func register(in router: inout Router) {
        router.on(.get, Self.path) { [self] request in try answer(request) }
    }

    func answer(_ request: HTTPRequest) throws -> HTTPResponse {
        let query = request.query
        // sunrise-sunset.org names the longitude `lng`; Pier's other routes say `lon`. Both are accepted.
        let point = try Coordinate(query, longitude: query["lon"] == nil && query["lng"] != nil ? "lng" : "lon")
        // Both given: `lon` wins, but a bad `lng` is still a bad request.
        if query["lon"] != nil, query["lng"] != nil { _ = try Coordinate(query, longitude: "lng") }
        let instant = now()
        let today = Int(instant.timeIntervalSince1970.rounded(.down)) / 86_400
        let date: CalendarDate
        let maxAge: Int
        if let text = query["date"] {
            guard let given = CalendarDate(text) else {
                throw HTTPError(.badRequest, "date must be a calendar date as YYYY-MM-DD, not '\(text.prefix(40))'")
            }
            date = given
            maxAge = Self.datedMaxAge
        } else {
            // "Today" in UTC, as the upstream's default; it is another day at the next UTC midnight.
            date = CalendarDate(dayNumber: today)
            maxAge = max(1, (today + 1) * 86_400 - Int(instant.timeIntervalSince1970.rounded(.up)))
        }
        let body = SunResponse.body(SunTimes(date: date, latitude: point.latitude, longitude: point.longitude))
        return CachedResponse(json: body, headers: ["Cache-Control": "public, max-age=\(maxAge)"]).response(for: request)
    }
}
