import Basics
import DatabaseTesting
import Feature
import Foundation
import Geography
import HTTPServer
@testable import LakeWeather
import Limits
import OnDemand
import Postgres
import Scheduling
import SharedAnswers
import UpstreamHTTP
import UpstreamTesting
import XCTest


/// The service against real PostgreSQL and a local OpenWeather serving the fixtures.
final class LakeWeatherServiceTests: ServiceTestCase {    let clock = SharedValue<Double>(1000)
    static let key = "0123456789abcdef-secret-key"

    typealias Service = OnDemand<LakeWeatherSource>

    func service(
        perDay: Int? = nil, shares: DailyShares = DailyShares(), timeZone: TimeZone = DailyQuota.utc, board: SourceStatusBoard? = nil,
        _ configure: (inout LakeWeatherFeature.Settings) -> Void = { _ in }
    ) -> Service {
        var settings = LakeWeatherFeature.Settings()
        settings.upstream.perDay = perDay
        configure(&settings)
        let clock = clock
        return OnDemand(
            kind: LakeWeatherFeature.source,
            source: LakeWeatherSource(
                client: OpenWeatherClient(baseURL: upstream.openWeatherURL, key: Self.key, client: UpstreamClient(configuration: .init(timeout: .seconds(5)))),
                store: SharedAnswerStore(pool: pool), settings: settings.source),
            upstream: OnDemandUpstream(
                name: "OpenWeather", metric: "openweather", settings: settings.upstream,
                quota: perDay.map { DailyQuota(upstream: "openweather", limit: $0, timeZone: timeZone, shares: shares, pool: pool) }, clock: { clock.value },
                metrics: nil),
            report: UpstreamReport(source: LakeWeatherFeature.source, board: board), settings: settings.engine)
    }

    let zurich = Coordinate(latitude: 47.3657, longitude: 8.5410)!
    let ouchy = Coordinate(latitude: 46.5065, longitude: 6.6268)!

    func decode(_ response: OnDemandResponse) throws -> AppForecast {
        XCTAssertEqual(response.response.status, .ok, String(decoding: response.response.body, as: UTF8.self))
        return try JSONDecoder().decode(AppForecast.self, from: Data(response.response.body))
    }

    func testFortyConcurrentRequestsForOneCellCostOneCallAndEveryReplicaShares() async throws {
        let service = service()
        let cell = service.source.cell(for: zurich)
        let bodies = await withTaskGroup(of: [UInt8].self) { group in
            for _ in 0..<40 { group.addTask { await service.response(for: cell, client: nil).response.body } }
            return await group.reduce(into: [[UInt8]]()) { $0.append($1) }
        }
        XCTAssertEqual(Set(bodies).count, 1)
        XCTAssertEqual(upstream.requests(.openweather).count, 1)
        let asked = try XCTUnwrap(upstream.requests(.openweather).first)
        XCTAssertEqual(asked.query["lat"], "47.35")
        XCTAssertEqual(asked.query["lon"], "8.55")
        XCTAssertEqual(asked.query["units"], "metric")
        XCTAssertEqual(asked.query["appid"], Self.key)
        let served = await service.response(for: cell, client: nil)
        XCTAssertEqual(try decode(served).list.count, 40)
        // Another process answers from PostgreSQL, same bytes, no call.
        let second = self.service()
        let again = await second.response(for: cell, client: nil)
        XCTAssertEqual(again.response.body, bodies[0])
        XCTAssertEqual(upstream.requests(.openweather).count, 1)
        let max = try XCTUnwrap(again.response.headers["cache-control"]).replacingOccurrences(of: "public, max-age=", with: "")
        XCTAssertLessThanOrEqual(try XCTUnwrap(Int(max)), 1800)
        XCTAssertGreaterThan(try XCTUnwrap(Int(max)), 1700)
    }

    func testTheSlotWithoutWindDegIsDroppedSoTheAppDecodes() async throws {
        let service = service()
        let forecast = try decode(await service.response(for: service.source.cell(for: ouchy), client: nil))
        XCTAssertEqual(forecast.list.count, 39)
    }

    func testAStaleForecastIsServedWhenOpenWeatherFailsRefusesOrBlocks() async throws {
        let service = service { $0.source.ttl = .seconds(600); $0.engine.provisional = .seconds(1) }
        let cell = service.source.cell(for: zurich)
        let fresh = try decode(await service.response(for: cell, client: nil))
        // Age the stored forecast beyond its TTL.
        _ = try await pool.execute("UPDATE upstream_answers SET fetched_at = now() - interval '20 minutes'")
        for (index, mode) in [FixtureUpstream.Mode.status(500), .garbage, .status(401), .status(429)].enumerated() {
            upstream.set(.openweather, mode)
            let later = Date().addingTimeInterval(Double(index + 1) * 700)
            let response = await self.service { $0.source.ttl = .seconds(600) }.response(for: cell, client: nil, now: later)
            XCTAssertEqual(response.response.headers["x-pier-stale"], "lake-weather", "\(mode)")
            XCTAssertEqual(response.response.headers["warning"], "110 - \"Response is Stale\"")
            XCTAssertEqual(try decode(response).list.count, fresh.list.count)
        }
        XCTAssertEqual(upstream.requests(.openweather).count, 5)
        // Nothing broken was stored: the row is still the first forecast.
        let rows = try await pool.query("SELECT count(*) AS n, min(fetched_at) < now() - interval '19 minutes' AS old FROM upstream_answers WHERE kind = 'lake-weather'")
        XCTAssertEqual(try rows.first?.decode(Int.self, "n"), 1)
        XCTAssertEqual(try rows.first?.decode(Bool.self, "old"), true)
    }

    func testAfter401And429NoCallIsMadeUntilThePauseEnds() async throws {
        for (code, pause) in [(401, 600.0), (429, 600.0)] {
            upstream.set(.openweather, .status(code))
            let service = service()
            let first = await service.response(for: service.source.cell(for: zurich), client: nil)
            XCTAssertEqual(first.response.status, .serviceUnavailable)
            let calls = upstream.requests(.openweather).count
            let second = await service.response(for: service.source.cell(for: ouchy), client: nil)
            XCTAssertEqual(second.response.status, .serviceUnavailable)
            XCTAssertEqual(upstream.requests(.openweather).count, calls, "paused after \(code)")
            XCTAssertGreaterThan(Int(second.response.headers["retry-after"] ?? "") ?? 0, Int(pause) - 5)
            let body = String(decoding: second.response.body, as: UTF8.self)
            XCTAssertFalse(body.contains(Self.key))
            let serviceHealth = try OrderedJSONEncoder.string(service.health())
            XCTAssertFalse(serviceHealth.contains(Self.key))
        }
    }

    func testNothingStoredAndOpenWeatherDownIs503WithRetryAfter() async throws {
        upstream.set(.openweather, .status(502))
        let service = service()
        let response = await service.response(for: service.source.cell(for: zurich), client: nil)
        XCTAssertEqual(response.response.status, .serviceUnavailable)
        XCTAssertNotNil(response.response.headers["retry-after"])
        let body = String(decoding: response.response.body, as: UTF8.self)
        XCTAssertTrue(body.hasPrefix(#"{"error":"#), body)
        XCTAssertFalse(body.contains(Self.key), body)
        let rows = try await pool.query("SELECT count(*) AS n FROM upstream_answers WHERE kind = 'lake-weather'")
        XCTAssertEqual(try rows.first?.decode(Int.self, "n"), 0)
    }

    func testAClientBeyondItsShareGets429AndTheSharedBudget503() async throws {
        let service = service { $0.upstream.budget = BudgetSettings(ratePerMinute: 4, burst: 4, clientShare: 0.25) }
        let greedy = Spender(IPAddress("203.0.113.7")!)
        let points = (0..<6).map { Coordinate(latitude: 46.0 + Double($0) * 0.2, longitude: 7.0)! }
        let first = await service.response(for: service.source.cell(for: points[0]), client: greedy)
        XCTAssertEqual(first.response.status, .ok)
        let second = await service.response(for: service.source.cell(for: points[1]), client: greedy)
        XCTAssertEqual(second.response.status, .tooManyRequests)
        XCTAssertNotNil(second.response.headers["retry-after"])
        // Other clients spend the rest; then the shared budget is spent for everyone: 503.
        for (index, point) in points[2...4].enumerated() {
            // Clients of other networks (one /24 has one share).
            let answer = await service.response(for: service.source.cell(for: point), client: Spender(IPAddress("198.51.\(index + 1).100")!))
            XCTAssertEqual(answer.response.status, .ok)
        }
        let spent = await service.response(for: service.source.cell(for: points[5]), client: Spender(IPAddress("192.0.2.1")!))
        XCTAssertEqual(spent.response.status, .serviceUnavailable)
        XCTAssertEqual(upstream.requests(.openweather).count, 4)
    }

    func testTheDailyQuotaIsCountedInPostgreSQLAcrossProcesses() async throws {
        let first = service(perDay: 2)
        let points = (0..<3).map { Coordinate(latitude: 46.0 + Double($0) * 0.2, longitude: 7.0)! }
        let one = await first.response(for: first.source.cell(for: points[0]), client: nil)
        XCTAssertEqual(one.response.status, .ok)
        // A second process (a replica) draws on the same count.
        let second = service(perDay: 2)
        let two = await second.response(for: second.source.cell(for: points[1]), client: nil)
        XCTAssertEqual(two.response.status, .ok)
        let refused = await second.response(for: second.source.cell(for: points[2]), client: nil)
        XCTAssertEqual(refused.response.status, .serviceUnavailable)
        XCTAssertTrue(String(decoding: refused.response.body, as: UTF8.self).contains("daily quota"))
        let untilMidnight = Int(refused.response.headers["retry-after"] ?? "") ?? 0
        XCTAssertGreaterThan(untilMidnight, 0)
        XCTAssertLessThanOrEqual(untilMidnight, 86_400)
        XCTAssertEqual(upstream.requests(.openweather).count, 2)
        let rows = try await pool.query("SELECT used FROM upstream_quota WHERE upstream = 'openweather'")
        XCTAssertEqual(try rows.first?.decode(Int.self, "used"), 2)
        let secondHealth = try OrderedJSONEncoder.string(second.health())
        XCTAssertTrue(secondHealth.contains(#""quota":{"per_day":2,"used_today":2,"left_today":0,"reserve":1}"#), secondHealth)
    }

    func testTheReserveRefreshesAnswersMoreThanOneClientAskedForWhileNewCellsAreRefused() async throws {
        // 10 a day, 3 kept; shares lifted so that only the reserve decides. The day is counted in a zone where it is
        // about noon now, so that half an hour later is the same day.
        let hour = Calendar(identifier: .gregorian).dateComponents(in: DailyQuota.utc, from: Date()).hour ?? 12
        let zone = TimeZone(secondsFromGMT: ((12 - hour + 12) % 24 - 12) * 3600) ?? DailyQuota.utc
        let service = service(perDay: 10, shares: DailyShares(subscriber: 0.7, network: 0.7, reserve: 0.3), timeZone: zone)
        let cells = (0..<9).map { service.source.cell(for: Coordinate(latitude: 45.0 + Double($0) * 0.3, longitude: 7.0)!) }
        let clients = (0..<9).map { Spender(IPAddress("198.51.\($0).7")!) }
        for index in 0..<7 {
            let answer = await service.response(for: cells[index], client: clients[index])
            XCTAssertEqual(answer.response.status, .ok)
        }
        // The open part of the day is spent: a new cell is refused, for everyone (503), the reserve untouched.
        let refused = await service.response(for: cells[7], client: clients[7])
        XCTAssertEqual(refused.response.status, .serviceUnavailable)
        XCTAssertTrue(String(decoding: refused.response.body, as: UTF8.self).contains("kept for answers many users ask for"))
        // Past the first cell's freshness another client asks for it: two clients asked, so the reserve refreshes it.
        let later = Date().addingTimeInterval(1900)
        let refreshed = await service.response(for: cells[0], client: clients[8], now: later)
        XCTAssertEqual(refreshed.response.status, .ok)
        XCTAssertNil(refreshed.response.headers["x-pier-stale"], "fresh from the reserve")
        XCTAssertEqual(upstream.requests(.openweather).count, 8)
        // The same client again for its own expired cell: one asker only, served stale, no call.
        let own = await service.response(for: cells[1], client: clients[1], now: later)
        XCTAssertNotNil(own.response.headers["x-pier-stale"])
        XCTAssertEqual(upstream.requests(.openweather).count, 8)
        let serviceHealth = try OrderedJSONEncoder.string(service.health())
        XCTAssertTrue(serviceHealth.contains(#""reserve":3"#), serviceHealth)
    }
}
