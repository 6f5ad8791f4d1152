import Basics
import DatabaseTesting
import Feature
import Foundation
import HTTPServer
import Limits
@testable import NSWDepartures
import OnDemand
import Parsing
import Postgres
import Scheduling
import SharedAnswers
import UpstreamHTTP
import UpstreamTesting
import XCTest


/// The service against real PostgreSQL and a local TfNSW serving the fixtures moved to now.
final class NSWDeparturesServiceTests: ServiceTestCase {    let clock = SharedValue<Double>(1000)
    static let key = "nsw-test-key-0123456789"

    typealias Service = OnDemand<NSWDeparturesSource>

    func service(perDay: Int? = nil, board: SourceStatusBoard? = nil, _ configure: (inout NSWDeparturesFeature.Settings) -> Void = { _ in }) -> Service {
        var settings = NSWDeparturesFeature.Settings()
        settings.upstream.perDay = perDay
        configure(&settings)
        let clock = clock
        let quota = perDay.map { DailyQuota(upstream: "tfnsw", limit: $0, timeZone: DepartureQuery.sydney, pool: pool) }
        return OnDemand(
            kind: NSWDeparturesFeature.source,
            source: NSWDeparturesSource(
                client: TfNSWClient(baseURL: upstream.tfnswURL, key: Self.key, client: UpstreamClient(configuration: .init(timeout: .seconds(5)))),
                store: SharedAnswerStore(pool: pool), quota: quota, settings: settings.source),
            upstream: OnDemandUpstream(name: "TfNSW", metric: "tfnsw", settings: settings.upstream, quota: quota, clock: { clock.value }, metrics: nil),
            report: UpstreamReport(source: NSWDeparturesFeature.source, board: board), settings: settings.engine)
    }

    let bus = DepartureQuery(stop: "G203519", mode: .bus)
    let all = DepartureQuery(stop: "G203519")

    func decode(_ prepared: OnDemandResponse, file: StaticString = #filePath, line: UInt = #line) throws -> AppDepartures {
        let response = prepared.cached.response
        XCTAssertEqual(response.status, .ok, String(decoding: response.body, as: UTF8.self), file: file, line: line)
        return try JSONDecoder().decode(AppDepartures.self, from: Data(response.body))
    }

    func testFortyConcurrentRequestsForOneStopCostOneCallForEveryModeAndReplicasShare() async throws {
        let service = service()
        let bodies = await withTaskGroup(of: [UInt8].self) { group in
            for index in 0..<40 {
                let query = index % 2 == 0 ? bus : DepartureQuery(stop: "G203519", mode: .lightrail)
                group.addTask { await service.response(for: query, client: nil).cached.response.body }
            }
            return await group.reduce(into: [[UInt8]]()) { $0.append($1) }
        }
        XCTAssertEqual(Set(bodies).count, 2, "one answer per mode")
        XCTAssertEqual(upstream.requests(.tfnsw).count, 1)
        let asked = try XCTUnwrap(upstream.requests(.tfnsw).first)
        XCTAssertEqual(asked.headers["authorization"], "apikey \(Self.key)")
        XCTAssertEqual(asked.query["name_dm"], "G203519")
        XCTAssertEqual(asked.query["outputFormat"], "rapidJSON")
        XCTAssertEqual(asked.query["mode"], "direct")
        XCTAssertEqual(asked.query["TfNSWDM"], "true")
        XCTAssertNil(asked.query["exclMOT_5"], "every mode in the one call")
        XCTAssertFalse(asked.query.values.contains { $0.contains(Self.key) }, "the key is never in the URL")
        XCTAssertEqual(asked.query["itdDate"]?.count, 8)
        let served = try decode(await service.response(for: all, client: nil))
        XCTAssertEqual(served.stopEvents.count, 8)
        // Another process answers from PostgreSQL: no call.
        let second = self.service()
        let again = try decode(await second.response(for: bus, client: nil))
        XCTAssertEqual(again.stopEvents.count, 6)
        XCTAssertEqual(upstream.requests(.tfnsw).count, 1)
        let prepared = await second.response(for: bus, client: nil)
        let maxAge = try XCTUnwrap(prepared.cached.response.headers["cache-control"]).replacingOccurrences(of: "public, max-age=", with: "")
        XCTAssertLessThanOrEqual(try XCTUnwrap(Int(maxAge)), 30)
        XCTAssertNotNil(prepared.fetchedAt)
    }

    func testDeparturesThatHaveLeftAreDroppedFromEveryAnswer() async throws {
        let service = service { $0.source.ttl = .seconds(3600) }
        let now = Date()
        let first = try decode(await service.response(for: all, client: nil, now: now))
        let firstLeaves = try XCTUnwrap(first.stopEvents.first?.departure)
        // Just after the first departure leaves (still fresh): the same data, one departure fewer, no call.
        let after = firstLeaves.addingTimeInterval(1)
        let cached = try XCTUnwrap(service.cachedResponse(for: all, now: after))
        let later = try JSONDecoder().decode(AppDepartures.self, from: Data(cached.cached.response.body))
        XCTAssertEqual(later.stopEvents.count, first.stopEvents.count - 1)
        XCTAssertEqual(later.stopEvents.first?.id, first.stopEvents[1].id)
        XCTAssertEqual(upstream.requests(.tfnsw).count, 1)
        // max-age counts from the fetch to the next departure; Age says how much of it has passed.
        let maxAge = try XCTUnwrap(Int(try XCTUnwrap(cached.cached.response.headers["cache-control"]).dropFirst("public, max-age=".count)))
        let age = try XCTUnwrap(Int(try XCTUnwrap(cached.response(for: HTTPRequest(method: .get, target: "/", path: "/"), now: after).headers["age"])))
        let nextLeaves = try XCTUnwrap(first.stopEvents[1].departure)
        XCTAssertEqual(Double(maxAge - age), nextLeaves.timeIntervalSince(after), accuracy: 2)
        // The answer kept with its Age (AgedResponse) serves the same second, never a later one or a 304.
        let request = HTTPRequest(method: .get, target: "/", path: "/")
        func sentAge(at date: Date, _ request: HTTPRequest = request) throws -> Int {
            try XCTUnwrap(Int(try XCTUnwrap(cached.response(for: request, now: date).headers["age"])))
        }
        XCTAssertEqual(try sentAge(at: after), age)
        XCTAssertEqual(try sentAge(at: after.addingTimeInterval(5)), age + 5)
        XCTAssertEqual(try sentAge(at: after), age)
        XCTAssertEqual(cached.response(for: request, now: after.addingTimeInterval(5)).body, cached.cached.response.body)
        var revalidation = request
        revalidation.headers.add("If-None-Match", try XCTUnwrap(cached.entityTag))
        XCTAssertEqual(cached.response(for: revalidation, now: after.addingTimeInterval(7)).status, .notModified)
        XCTAssertEqual(try sentAge(at: after.addingTimeInterval(7), revalidation), age + 7)
        // Stale after a failure, far later: only what is still to come.
        upstream.set(.tfnsw, .status(500))
        _ = try await pool.execute("UPDATE upstream_answers SET fetched_at = now() - interval '2 hours'")
        let expired = self.service()
        let lastPlanned = try XCTUnwrap(first.stopEvents.compactMap(\.departure).max())
        let nearEnd = lastPlanned.addingTimeInterval(-1)
        let stale = await expired.response(for: all, client: nil, now: nearEnd)
        XCTAssertEqual(stale.cached.response.headers["x-pier-stale"], "nsw")
        XCTAssertEqual(try decode(stale).stopEvents.count, 1)
        // When every departure has left, a stale answer says nothing: 503.
        let end = lastPlanned.addingTimeInterval(1)
        let none = await expired.response(for: all, client: nil, now: end)
        XCTAssertEqual(none.cached.response.status, .serviceUnavailable)
        XCTAssertNotNil(none.cached.response.headers["retry-after"])
    }

    func testAStaleAnswerIsServedWhenTfNSWFailsThrottlesOrRefusesAndThePausesHold() async throws {
        let board = SourceStatusBoard()
        board.register(NSWDeparturesFeature.source, staleAfter: .seconds(3600), onDemand: true)
        let service = service(board: board) { $0.engine.provisional = .seconds(1) }
        _ = try decode(await service.response(for: all, client: nil))
        for (index, mode) in [
            FixtureUpstream.Mode.status(500), .garbage, .json(Array(#"{"stopEvents":[{"x":1}]}"#.utf8)), try FixtureUpstream.tfnswLimit("over-rate"),
            .rateLimited(retryAfter: 2), try FixtureUpstream.tfnswLimit("over-quota"), .status(401),
        ].enumerated() {
            upstream.set(.tfnsw, mode)
            clock.update { $0 += 100_000 }  // past any pause of the last round
            let later = Date().addingTimeInterval(Double(31 + index * 2))
            let stale = await service.response(for: all, client: nil, now: later)
            XCTAssertEqual(stale.cached.response.status, .ok, "\(mode)")
            XCTAssertEqual(stale.cached.response.headers["x-pier-stale"], "nsw", "\(mode)")
            XCTAssertEqual(stale.cached.response.headers["warning"], "110 - \"Response is Stale\"")
            XCTAssertEqual(upstream.requests(.tfnsw).count, 2 + index, "\(mode): asked once")
            // `/health` shows the state, never what was asked (the stop, the URL).
            let shown = board.statuses().first { $0.source == NSWDeparturesFeature.source }?.lastError ?? ""
            XCTAssertFalse(shown.contains("G203519") || shown.contains("http"), "\(mode): \(shown)")
        }
        // The 401 paused every call: asking again now costs nothing.
        let serviceHealth = try OrderedJSONEncoder.string(service.health())
        let health = serviceHealth
        XCTAssertTrue(health.contains(#""paused_s":600"#), health)
        _ = await service.response(for: DepartureQuery(stop: "203294"), client: nil)
        XCTAssertEqual(upstream.requests(.tfnsw).count, 8)
        XCTAssertEqual(board.statuses().first { $0.source == NSWDeparturesFeature.source }?.lastError?.hasPrefix("401: TfNSW refused this server's key"), true)
        XCTAssertFalse(health.contains(Self.key))
    }

    func testOverQuotaPausesUntilMidnightInSydneyAndNothingStoredIs503() async throws {
        let service = service()
        upstream.set(.tfnsw, try FixtureUpstream.tfnswLimit("over-quota"))
        let response = await service.response(for: all, client: nil)
        XCTAssertEqual(response.cached.response.status, .serviceUnavailable)
        XCTAssertTrue(String(decoding: response.cached.response.body, as: UTF8.self).contains("daily quota"))
        let serviceHealth = try OrderedJSONEncoder.string(service.health())
        let paused = try XCTUnwrap(Int(serviceHealth.split(separator: ",").first { $0.hasPrefix(#""paused_s""#) }?.split(separator: ":").last ?? ""))
        let sydney = DepartureQuery.sydney
        let midnight = CalendarDate(Date(), in: sydney).adding(days: 1).start(in: sydney).timeIntervalSinceNow
        XCTAssertEqual(Double(paused), midnight, accuracy: 5)
        // Throttled: a short pause, Retry-After from TfNSW's 403.
        let other = self.service()
        upstream.set(.tfnsw, try FixtureUpstream.tfnswLimit("over-rate"))
        let throttled = await other.response(for: all, client: nil)
        XCTAssertEqual(throttled.cached.response.status, .serviceUnavailable)
        XCTAssertEqual(throttled.cached.response.headers["retry-after"], "5")
        XCTAssertEqual(upstream.requests(.tfnsw).count, 2)
    }

    func testAnUnknownStopIs404AndRememberedAcrossRequestsAndReplicas() async throws {
        let service = service()
        let unknown = DepartureQuery(stop: "X999")
        let first = await service.response(for: unknown, client: nil)
        XCTAssertEqual(first.cached.response.status, .notFound)
        XCTAssertEqual(String(decoding: first.cached.response.body, as: UTF8.self), #"{"error":"TfNSW knows no stop with id X999"}"#)
        _ = await service.response(for: DepartureQuery(stop: "X999", mode: .bus), client: nil)
        _ = await self.service().response(for: unknown, client: nil)
        XCTAssertEqual(upstream.requests(.tfnsw).count, 1)
    }

    func testTheBudgetAndAClientsShare() async throws {
        let service = service { $0.upstream.budget = .init(ratePerMinute: 60, burst: 4, clientShare: 0.25) }
        let phone = IPAddress("198.51.100.7").map(Spender.init)
        let first = await service.response(for: DepartureQuery(stop: "G203519"), client: phone)
        XCTAssertEqual(first.cached.response.status, .ok)
        // This client's share (one of four) is spent; nothing is stored for the next stop: 429.
        let second = await service.response(for: DepartureQuery(stop: "203294"), client: phone)
        XCTAssertEqual(second.cached.response.status, .tooManyRequests)
        XCTAssertNotNil(second.cached.response.headers["retry-after"])
        // Other clients (of other networks: a /24 has one share) spend the rest; then the budget itself is spent: 503.
        for (index, stop) in ["A1", "A2", "A3"].enumerated() {
            let answer = await service.response(for: DepartureQuery(stop: stop), client: IPAddress("203.0.\(20 + index).7").map(Spender.init))
            XCTAssertEqual(answer.cached.response.status, .notFound)
        }
        let spent = await service.response(for: DepartureQuery(stop: "203294"), client: IPAddress("192.0.2.99").map(Spender.init))
        XCTAssertEqual(spent.cached.response.status, .serviceUnavailable)
        XCTAssertEqual(upstream.requests(.tfnsw).count, 4)
    }

    func testTheDailyQuotaIsCountedInPostgreSQLAndSpreadOverTheWatchedStops() async throws {
        let service = service(perDay: 3)
        for stop in ["G203519", "203294", "B1"] { _ = await service.response(for: DepartureQuery(stop: stop), client: nil) }
        XCTAssertEqual(upstream.requests(.tfnsw).count, 3)
        // The quota is spent for every replica: a fourth stop is not asked.
        let refused = await self.service(perDay: 3).response(for: DepartureQuery(stop: "B2"), client: nil)
        XCTAssertEqual(refused.cached.response.status, .serviceUnavailable)
        XCTAssertTrue(String(decoding: refused.cached.response.body, as: UTF8.self).contains("daily quota"))
        XCTAssertEqual(upstream.requests(.tfnsw).count, 3)
        // With no quota left and stops watched, answers stay fresh far longer than 30 s: an hour or more, or — in
        // the last hour of the Sydney day — until the day's end, when the quota comes back.
        let serviceHealth = try OrderedJSONEncoder.string(service.health())
        XCTAssertTrue(serviceHealth.contains(#""left_today":0"#), serviceHealth)
        let ttl = try XCTUnwrap(Int(serviceHealth.split(separator: ",").first { $0.hasPrefix(#""ttl_s""#) }?.split(separator: ":").last ?? ""))
        let sydney = DepartureQuery.sydney
        let dayLeft = Int(CalendarDate(Date(), in: sydney).adding(days: 1).start(in: sydney).timeIntervalSinceNow)
        XCTAssertGreaterThanOrEqual(ttl, min(3600, dayLeft - 5), "\(dayLeft) s left of the Sydney day")
    }

    func testTheQuotaStretchesFreshnessBeforeItRunsOut() async throws {
        // 1,000 calls a day over the 2 stops TfNSW knows (B1 is none): each fresh for about 2 × (seconds left today) / 1,000.
        let service = service(perDay: 1000) { $0.upstream.budget = .init(ratePerMinute: 6000, burst: 100, clientShare: 1) }
        for stop in ["G203519", "203294", "B1"] { _ = await service.response(for: DepartureQuery(stop: stop), client: nil) }
        let sydney = DepartureQuery.sydney
        let left = CalendarDate(Date(), in: sydney).adding(days: 1).start(in: sydney).timeIntervalSinceNow
        let serviceHealth = try OrderedJSONEncoder.string(service.health())
        let ttl = try XCTUnwrap(Int(serviceHealth.split(separator: ",").first { $0.hasPrefix(#""ttl_s""#) }?.split(separator: ":").last ?? ""))
        XCTAssertEqual(Double(ttl), max(30, 2 * left / 998), accuracy: 2)
        // An answer 40 s old is still fresh when the spread asks for more than 40 s.
        if ttl > 60 {
            let later = Date().addingTimeInterval(40)
            _ = await service.response(for: DepartureQuery(stop: "G203519", mode: .bus), client: nil, now: later)
            XCTAssertEqual(upstream.requests(.tfnsw).count, 3)
        }
        // Stops TfNSW does not know are nobody's to refresh: they cost their call, not a share of the day.
        for stop in ["X1", "X2", "X3"] { _ = await service.response(for: DepartureQuery(stop: stop), client: nil) }
        _ = await service.response(for: DepartureQuery(stop: "B2"), client: nil)
        let laterHealth = try OrderedJSONEncoder.string(service.health())
        let spread = try XCTUnwrap(Int(laterHealth.split(separator: ",").first { $0.hasPrefix(#""ttl_s""#) }?.split(separator: ":").last ?? ""))
        // Watched when B2's freshness was reckoned: G203519 and 203294 only (B2 was not answered yet).
        XCTAssertEqual(Double(spread), max(30, 2 * left / 994), accuracy: 2, "X1…X3 were never counted")
    }

    /// Ids nobody can check — unknown to TfNSW, or refused before TfNSW was asked — do not stretch the freshness
    /// every watched stop gets (2,000 random ids from one network stretched it from 30 s to 195 s).
    func testOnlyStopsTfNSWAnsweredCountAsWatched() async throws {
        let service = service(perDay: 1000) { $0.upstream.budget = .init(ratePerMinute: 6000, burst: 100, clientShare: 1) }
        for index in 0..<50 { _ = await service.response(for: DepartureQuery(stop: "R\(index)"), client: nil) }
        _ = await service.response(for: DepartureQuery(stop: "G203519"), client: nil)
        _ = await service.response(for: DepartureQuery(stop: "203294"), client: nil)
        let sydney = DepartureQuery.sydney
        let left = CalendarDate(Date(), in: sydney).adding(days: 1).start(in: sydney).timeIntervalSinceNow
        let serviceHealth = try OrderedJSONEncoder.string(service.health())
        let ttl = try XCTUnwrap(Int(serviceHealth.split(separator: ",").first { $0.hasPrefix(#""ttl_s""#) }?.split(separator: ":").last ?? ""))
        // Reckoned at 203294's miss: one stop answered (G203519), 51 calls made.
        XCTAssertEqual(Double(ttl), max(30, 1 * left / 949), accuracy: 2, "the 50 unknown ids are not watched")
        // Refused requests (a spent client share) are not watched either.
        let tight = self.service(perDay: 1000) { $0.upstream.budget = .init(ratePerMinute: 1, burst: 1, clientShare: 1) }
        _ = await tight.response(for: DepartureQuery(stop: "G203519"), client: nil)
        for index in 0..<20 {
            let refused = await tight.response(for: DepartureQuery(stop: "Q\(index)"), client: nil)
            XCTAssertNotEqual(refused.cached.response.status, .ok)
        }
        let tightHealth = try OrderedJSONEncoder.string(tight.health())
        let tightTTL = try XCTUnwrap(Int(tightHealth.split(separator: ",").first { $0.hasPrefix(#""ttl_s""#) }?.split(separator: ":").last ?? ""))
        XCTAssertLessThanOrEqual(Double(tightTTL), max(30, 1 * left / 940) + 2, "20 refused ids did not count")
    }

    func testTheWatchedSetIsBounded() {
        let watched = WatchedStops()
        for index in 0..<(WatchedStops.limit + 100) { watched.note("S\(index)", at: Double(index)) }
        XCTAssertEqual(watched.count(at: Double(WatchedStops.limit + 100), window: 1e9), WatchedStops.limit)
    }
}
