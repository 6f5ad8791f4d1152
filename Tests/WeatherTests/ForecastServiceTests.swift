import DatabaseTesting
import Feature
import Foundation
import Geography
import HTTPServer
import Limits
import Postgres
import Synchronization
import UpstreamTesting
@testable import Weather
import XCTest

/// Forecast tiers, the FMI budget, neighbouring cells and per-client shares against a real PostgreSQL/PostGIS
/// and the local FMI (`FixtureUpstream`), which counts every request it gets.
final class ForecastServiceTests: WeatherDatabaseTestCase {
    /// A clock that only moves when told to, for budgets that must not refill during a test.
    final class ManualClock: Sendable {
        private let seconds = Mutex(1000.0)
        func advance(_ delta: Double) { seconds.withLock { $0 += delta } }
        var now: Double { seconds.withLock { $0 } }
    }

    private func service(
        ttl: TimeInterval = 3600, neighbourKilometres: Double = 10, budget: BudgetSettings = .init(),
        clock: ManualClock? = nil
    ) -> ForecastService {
        let fmi = fmi()
        let settings = ForecastService.Settings(ttl: .milliseconds(Int64(ttl * 1000)), neighbourKilometres: neighbourKilometres, budget: budget)
        if let clock {
            return ForecastService(client: fmi, store: WeatherStore(pool: pool), settings: settings, clock: { clock.now })
        }
        return ForecastService(client: fmi, store: WeatherStore(pool: pool), settings: settings)
    }

    private var forecastRequests: Int { upstream.requests(.fmi).filter { $0.query["latlon"] != nil }.count }

    /// A stored forecast for `cell`, fetched at `fetchedAt` (hours from now on).
    private func storeForecast(_ cell: GridCell, fetchedAt: Date) async throws {
        let hours = (0..<48).map { Forecast.Hour(validAt: Date().addingTimeInterval(Double($0) * 3600), temperature: Double($0) / 10, symbolCode: 1) }
        try await WeatherStore(pool: pool).store(Forecast(cell: cell, fetchedAt: fetchedAt, hours: hours))
    }

    // MARK: Tiers and single-flight

    func testForecastTiersMemoryThenPostgreSQLThenFMI() async throws {
        let cell = GridCell(latitude: 60.17, longitude: 24.94)
        let first = service()
        let cold = try await first.forecast(for: cell)
        XCTAssertEqual(cold.provenance, .own)
        XCTAssertEqual(cold.forecast.hours.count, 240)
        XCTAssertEqual(forecastRequests, 1)
        XCTAssertEqual(upstream.requests(.fmi).first?.query["latlon"], "60.1700,24.9400")
        XCTAssertEqual(upstream.requests(.fmi).first?.query["storedquery_id"], FMIClient.defaultForecastQuery)

        _ = try await first.forecast(for: cell)
        XCTAssertNotNil(first.cachedForecast(for: cell))
        XCTAssertEqual(forecastRequests, 1, "memory tier")

        let second = service()
        let fromDatabase = try await second.forecast(for: cell)
        XCTAssertEqual(fromDatabase.forecast.hours, cold.forecast.hours)
        XCTAssertEqual(fromDatabase.provenance, .own)
        XCTAssertEqual(forecastRequests, 1, "PostgreSQL tier (another process, same database)")

        let expired = service(ttl: 0.001)
        _ = try await expired.forecast(for: cell)
        XCTAssertEqual(forecastRequests, 2, "past the TTL FMI is asked again")
    }

    func testFiftyConcurrentRequestsForAColdCellMakeOneUpstreamCall() async throws {
        let service = service()
        let cell = GridCell(latitude: 61.5, longitude: 23.76)
        let results = await withTaskGroup(of: Int.self) { group in
            for _ in 0..<50 { group.addTask { (try? await service.forecast(for: cell).forecast.hours.count) ?? -1 } }
            return await group.reduce(into: [Int]()) { $0.append($1) }
        }
        XCTAssertEqual(results, Array(repeating: 240, count: 50))
        XCTAssertEqual(forecastRequests, 1)
        XCTAssertEqual(service.budget.snapshot().granted, 1, "joining a running call takes no token")
    }

    func testWhenFMIFailsAStaleForecastIsServedElseUnavailable() async throws {
        let cell = GridCell(latitude: 60.17, longitude: 24.94)
        _ = try await service().forecast(for: cell)

        for mode in [FixtureUpstream.Mode.status(500), .exception, .garbage] {
            upstream.set(.fmi, mode)
            let answer = try await service(ttl: 0.001).forecast(for: cell)
            XCTAssertEqual(answer.provenance, .stale, "\(mode)")
            XCTAssertTrue(answer.stale)
            XCTAssertEqual(answer.forecast.hours.count, 240)
        }
        do {
            _ = try await service().forecast(for: GridCell(latitude: 65.0, longitude: 25.5))
            XCTFail("no forecast within reach and FMI failing: unavailable")
        } catch let unavailable as ForecastService.Unavailable {
            XCTAssertEqual(unavailable.retryAfter, ForecastService.retryAfterFailure)
        }
    }

    // MARK: The budget

    /// The load: 500 concurrent requests for 500 different cold cells around one warm cell. FMI is
    /// asked at most burst + rate × elapsed times, and every request gets a forecast.
    func testFiveHundredColdCellsStayWithinTheBudgetAndAllGetAnAnswer() async throws {
        let budget = BudgetSettings(ratePerMinute: 60, burst: 20, clientShare: 1)
        let service = service(neighbourKilometres: 20, budget: budget)
        let started = Date()
        _ = try await service.forecast(at: Coordinate(latitude: 64.0, longitude: 26.0)!)
        var points: [(latitude: Double, longitude: Double)] = []
        for index in 0..<500 {
            let row = Double(index / 20 - 12), column = Double(index % 20 - 10)
            points.append((64.0 + row * 0.01, 26.0 + column * 0.02 + 0.001))
        }
        XCTAssertEqual(Set(points.map { GridCell(latitude: $0.latitude, longitude: $0.longitude) }).count, 500)
        let answers = await withTaskGroup(of: ForecastService.Answer?.self) { group in
            for point in points {
                group.addTask { try? await service.forecast(at: Coordinate(latitude: point.latitude, longitude: point.longitude)!) }
            }
            return await group.reduce(into: [ForecastService.Answer?]()) { $0.append($1) }
        }
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(answers.count, 500)
        XCTAssertEqual(answers.filter { $0 == nil }.count, 0, "every request has an answer")
        let allowed = Double(budget.burst) + budget.ratePerMinute / 60 * elapsed
        XCTAssertLessThanOrEqual(Double(forecastRequests), allowed.rounded(.down), "within the budget after \(elapsed) s")
        XCTAssertGreaterThanOrEqual(forecastRequests, budget.burst, "the burst was used")
        var byProvenance: [ForecastService.Provenance: Int] = [:]
        for answer in answers.compactMap({ $0 }) { byProvenance[answer.provenance, default: 0] += 1 }
        XCTAssertEqual(byProvenance[.own] ?? 0, forecastRequests, "one own answer per FMI call (the warm cell is one of the 500)")
        XCTAssertGreaterThan(byProvenance[.neighbour] ?? 0, 400)
        XCTAssertNil(byProvenance[.neighbourStale])
        for answer in answers.compactMap({ $0 }) where answer.provenance == .neighbour {
            XCTAssertLessThanOrEqual(answer.kilometres ?? .infinity, 20)
        }
        XCTAssertGreaterThan(service.budget.snapshot().refused[.budget] ?? 0, 0)
    }

    /// own fresh → own stale → neighbour fresh → neighbour stale → unavailable, with no token to spend.
    func testTheOrderOfPreference() async throws {
        let clock = ManualClock()
        let now = Date()
        let ttl: TimeInterval = 3600
        let old = now.addingTimeInterval(-2 * ttl)
        let home = GridCell(latitude: 62.0, longitude: 25.0)
        let nearStale = GridCell(latitude: 62.02, longitude: 25.0)  // 2.2 km north, old
        let farFresh = GridCell(latitude: 62.05, longitude: 25.0)  // 5.6 km north, fresh
        try await storeForecast(nearStale, fetchedAt: old)
        try await storeForecast(farFresh, fetchedAt: now.addingTimeInterval(-60))
        let service = service(ttl: ttl, budget: .init(ratePerMinute: 60, burst: 1, clientShare: 1), clock: clock)

        // No token: the home cell has nothing, the fresh neighbour wins over the nearer stale one (PostgreSQL tier).
        _ = service.budget.acquire(for: nil)
        var answer = try await service.forecast(for: home, now: now)
        XCTAssertEqual(answer.provenance, .neighbour)
        XCTAssertEqual(answer.forecast.cell, farFresh)
        XCTAssertEqual(answer.kilometres ?? 0, GreatCircle.kilometres(home.latitude, home.longitude, farFresh.latitude, farFresh.longitude), accuracy: 0.01)
        XCTAssertEqual(forecastRequests, 0)

        // Two hours later both neighbours are stale: the nearer one (from PostgreSQL; memory holds the other) is used.
        answer = try await service.forecast(for: home, now: now.addingTimeInterval(2 * ttl))
        XCTAssertEqual(answer.provenance, .neighbourStale)
        XCTAssertEqual(answer.forecast.cell, nearStale)
        XCTAssertEqual(answer.kilometres ?? 0, 2.22, accuracy: 0.01)

        // With a token the home cell is fetched: its own fresh forecast.
        clock.advance(1)
        answer = try await service.forecast(for: home, now: now)
        XCTAssertEqual(answer.provenance, .own)
        XCTAssertNil(answer.kilometres)
        XCTAssertEqual(forecastRequests, 1)

        // Past its TTL without a token: its own stale forecast beats a fresh neighbour.
        try await storeForecast(farFresh, fetchedAt: Date().addingTimeInterval(2 * ttl))
        answer = try await service.forecast(for: home, now: Date().addingTimeInterval(2 * ttl))
        XCTAssertEqual(answer.provenance, .stale)
        XCTAssertEqual(answer.forecast.cell, home)
        XCTAssertEqual(forecastRequests, 1)

        // Nothing within 10 km and no token: unavailable, retry when the bucket refills (1 token a second).
        do {
            _ = try await service.forecast(at: Coordinate(latitude: 68.0, longitude: 27.0)!, now: now)
            XCTFail("nothing within reach")
        } catch let unavailable as ForecastService.Unavailable {
            XCTAssertEqual(unavailable.retryAfter, 1)
            XCTAssertTrue(unavailable.reason.contains("budget"), unavailable.reason)
        }
        XCTAssertEqual(service.budget.snapshot().refused[.budget], 4)
    }

    /// Budget refusals say whose budget it is: this client's share (429 at the route) or everyone's (503).
    func testARefusalSaysWhetherItWasThisClientsShareOrTheSharedBudget() async throws {
        let clock = ManualClock()
        let service = service(neighbourKilometres: 0, budget: .init(ratePerMinute: 60, burst: 4, clientShare: 0.25), clock: clock)
        let greedy = Spender(try XCTUnwrap(IPAddress("203.0.113.5")))
        _ = try await service.forecast(at: Coordinate(latitude: 61.0, longitude: 24.0)!, client: greedy)
        do {
            _ = try await service.forecast(at: Coordinate(latitude: 61.1, longitude: 24.0)!, client: greedy)
            XCTFail("the client's share is one call")
        } catch let unavailable as ForecastService.Unavailable {
            XCTAssertEqual(unavailable.cause, .clientShare)
        }
        // Other networks (a /24 has one share, whatever its addresses).
        for (index, latitude) in [61.2, 61.3, 61.4].enumerated() {
            _ = try await service.forecast(at: Coordinate(latitude: latitude, longitude: 24.0)!, client: IPAddress("198.51.\(index + 1).100").map(Spender.init))
        }
        do {
            _ = try await service.forecast(at: Coordinate(latitude: 61.5, longitude: 24.0)!, client: IPAddress("192.0.2.9").map(Spender.init))
            XCTFail("the shared burst is spent")
        } catch let unavailable as ForecastService.Unavailable {
            XCTAssertEqual(unavailable.cause, .upstream)
        }
    }

    func testOneClientCannotDrainTheBudgetWhileAnotherGetsItsOwnCell() async throws {
        let clock = ManualClock()
        let service = service(budget: .init(ratePerMinute: 60, burst: 8, clientShare: 0.25), clock: clock)
        let greedy = Spender(try XCTUnwrap(IPAddress("203.0.113.5")))
        let polite = Spender(try XCTUnwrap(IPAddress("198.51.100.7")))
        var provenances: [ForecastService.Provenance] = []
        for step in 0..<10 {
            let answer = try await service.forecast(at: Coordinate(latitude: 61.0 + Double(step) * 0.01, longitude: 24.0)!, client: greedy)
            provenances.append(answer.provenance)
        }
        XCTAssertEqual(provenances.filter { $0 == .own }.count, 2, "a quarter of a burst of 8")
        XCTAssertEqual(provenances.filter { $0 == .neighbour }.count, 8, "then neighbours, not errors")
        XCTAssertEqual(forecastRequests, 2)
        XCTAssertEqual(service.budget.snapshot().refused[.clientShare], 8)

        let answer = try await service.forecast(at: Coordinate(latitude: 61.05, longitude: 24.5)!, client: polite)
        XCTAssertEqual(answer.provenance, .own, "another client still gets its own cell")
        XCTAssertEqual(forecastRequests, 3)
        XCTAssertEqual(service.budget.retryAfter(for: greedy.groups), 4, accuracy: 0.01, "a quarter of a token a second")
    }

    func testABudgetOfZeroNeverAsksFMI() async throws {
        let service = service(budget: .init(ratePerMinute: 0, burst: 20, clientShare: 1))
        do {
            _ = try await service.forecast(at: Coordinate(latitude: 60.17, longitude: 24.94)!)
            XCTFail("no forecast and no budget")
        } catch let unavailable as ForecastService.Unavailable {
            XCTAssertEqual(unavailable.retryAfter, RetryAfter.limit)
        }
        XCTAssertEqual(forecastRequests, 0)
    }

    // MARK: PostgreSQL

    func testNearbyCellsFromPostGISAgreeWithGreatCircle() async throws {
        let store = WeatherStore(pool: pool)
        let now = Date()
        let cells = (0..<40).map { GridCell(latitudeIndex: 6000 + $0 * 3, longitudeIndex: 1250 + ($0 % 7) * 2) }
        for (index, cell) in cells.enumerated() {
            try await storeForecast(cell, fetchedAt: index % 2 == 0 ? now : now.addingTimeInterval(-7200))
        }
        for latitude in stride(from: 60.0, through: 61.2, by: 0.1) {
            let found = try await store.nearbyCells(
                latitude: latitude, longitude: 25.1, within: 10, freshSince: now.addingTimeInterval(-3600), excluding: GridCell(latitudeIndex: 0, longitudeIndex: 0))
            let distances = cells.enumerated().map { (index: $0.offset, km: GreatCircle.kilometres(latitude, 25.1, $0.element.latitude, $0.element.longitude)) }
                .filter { $0.km <= 10 }
            let nearest = distances.min { $0.km < $1.km }
            let nearestFresh = distances.filter { $0.index % 2 == 0 }.min { $0.km < $1.km }
            XCTAssertEqual(found.any?.cell, nearest.map { cells[$0.index] }, "\(latitude)")
            XCTAssertEqual(found.fresh?.cell, nearestFresh.map { cells[$0.index] }, "\(latitude)")
            XCTAssertEqual(found.any?.kilometres ?? -1, nearest?.km ?? -1, accuracy: 0.001)
        }
    }

    /// Forecasts live in the shared answer store, kept 48 hours after they were fetched: storing a new one prunes
    /// the older ones, and what is read back is what was stored.
    func testOldForecastsArePrunedAsNewOnesAreStored() async throws {
        try await storeForecast(GridCell(latitude: 60.5, longitude: 25.0), fetchedAt: Date().addingTimeInterval(-50 * 3600))
        try await storeForecast(GridCell(latitude: 60.6, longitude: 25.0), fetchedAt: Date().addingTimeInterval(-3600))
        let cells = try await pool.query("SELECT key FROM upstream_answers WHERE kind = 'fmi-forecast'")
        XCTAssertEqual(try cells.map { try $0.decode(String.self, "key") }, ["6060,1250"])
        let read = try await WeatherStore(pool: pool).forecast(for: GridCell(latitude: 60.6, longitude: 25.0))
        XCTAssertEqual(read?.hours.count, 48, "every hour read back")
        XCTAssertEqual(read?.hours.last?.temperature, 4.7)
        XCTAssertEqual(read?.hours.last?.symbolCode, 1)
    }

    /// Migration 0030 moved the place names resolved so far from `weather_places` into the shared answer store: a
    /// name found and a name FMI knows no place by are both served after the upgrade without asking FMI, and a new
    /// resolution is stored there.
    func testPlaceNamesKeptByThePreviousSchemaAreServedAfterTheUpgrade() async throws {
        let previous = try TestDatabase.create()
        defer { previous.drop() }
        let old = try await previous.migratedPool(through: 29)
        let now = Date()
        _ = try await old.execute(
            "INSERT INTO weather_places (query, name, latitude, longitude, resolved_at) VALUES ('kumpula', 'Kumpula', 60.20307, 24.96131, $1), ('nowhere', NULL, NULL, NULL, $1)",
            [now])
        old.close()
        let upgraded = try await previous.migratedPool()
        defer { upgraded.close() }
        let places = FMIPlaceSource(client: fmi(), pool: upgraded, forecasts: service())
        guard case .found(let kumpula)? = try await places.stored(.init("  KUMPULA "))?.value else { return XCTFail("Kumpula was kept") }
        XCTAssertEqual(kumpula, PlaceResolver.Place(name: "Kumpula", latitude: 60.20307, longitude: 24.96131))
        guard case .unknown? = try await places.stored(.init("Nowhere"))?.value else { return XCTFail("the unknown name was kept") }
        let left = try await upgraded.query("SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'weather_places'")
        XCTAssertEqual(try left.first?.decode(Int.self, "n"), 0, "the table is gone")
        try await places.store(.found(PlaceResolver.Place(name: "Helsinki", latitude: 60.17, longitude: 24.94)), for: .init("Helsinki"), fetchedAt: now)
        guard case .found(let helsinki)? = try await places.stored(.init("helsinki"))?.value else { return XCTFail("stored") }
        XCTAssertEqual(helsinki.name, "Helsinki")
        let never = try await places.stored(.init("Espoo"))
        XCTAssertNil(never, "nothing stored for a name never asked")
    }


    /// Migration 0032 moved the forecasts held so far from `weather_forecast_cells` and `_points` into the shared answer
    /// store: a cell's forecast reads back hour for hour after the upgrade, and is found as a neighbour.
    func testForecastsKeptByThePreviousSchemaReadBackAfterTheUpgrade() async throws {
        let previous = try TestDatabase.create()
        defer { previous.drop() }
        let old = try await previous.migratedPool(through: 31)
        let cell = GridCell(latitude: 60.17, longitude: 24.94)
        // On a whole hour, as FMI's hours are (the compact series keeps whole hours).
        let fetched = Date(timeIntervalSince1970: 1_794_999_600)
        _ = try await old.execute(
            "INSERT INTO weather_forecast_cells (cell_lat, cell_lon, fetched_at) VALUES ($1, $2, $3)", [cell.latitudeIndex, cell.longitudeIndex, fetched])
        for hour in 0..<3 {
            _ = try await old.execute(
                """
                INSERT INTO weather_forecast_points (cell_lat, cell_lon, valid_at, temperature, wind_speed, wind_direction, humidity, pressure,
                    precipitation_1h, weather_symbol, wind_gust, feels_like) VALUES ($1, $2, $3, $4, 3.5, 180, 80, 1010.5, 0.2, 2, NULL, -1.5)
                """, [cell.latitudeIndex, cell.longitudeIndex, fetched.addingTimeInterval(Double(hour) * 3600), Double(hour) - 0.5])
        }
        old.close()
        let upgraded = try await previous.migratedPool()
        defer { upgraded.close() }
        let store = WeatherStore(pool: upgraded)
        let stored = try await store.forecast(for: cell)
        let read = try XCTUnwrap(stored)
        XCTAssertEqual(read.fetchedAt, fetched)
        XCTAssertEqual(read.hours.map(\.validAt), (0..<3).map { fetched.addingTimeInterval(Double($0) * 3600) })
        XCTAssertEqual(read.hours.map(\.temperature), [-0.5, 0.5, 1.5])
        XCTAssertEqual(read.hours.first?.pressure, 1010.5)
        XCTAssertNil(read.hours.first?.windGust)
        XCTAssertEqual(read.hours.first?.feelsLike, -1.5)
        let near = try await store.nearbyCells(
            latitude: 60.19, longitude: 24.94, within: 10, freshSince: fetched, excluding: GridCell(latitude: 60.19, longitude: 24.94))
        XCTAssertEqual(near.fresh?.cell, cell)
        XCTAssertEqual(near.fresh?.kilometres ?? 0, 2.2, accuracy: 0.1)
    }

}
