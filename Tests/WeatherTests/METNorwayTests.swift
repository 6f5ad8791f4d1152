import Basics
import DatabaseTesting
import Feature
import Foundation
import Limits
import METNorway
@testable import METNorwayFormat
import Parsing
import Postgres
import UpstreamHTTP
import UpstreamTesting
@testable import Weather
import XCTest


/// MET Norway standing in for FMI: its reader on the recordings, its symbols, and the fallback through the local
/// MET double (which keeps MET's rules) and PostgreSQL — when it is asked, how often, and what is preferred.
final class METNorwayTests: WeatherDatabaseTestCase {
    private func recording(_ name: String) throws -> [UInt8] { try Fixtures.bytes("metno", name) }

    func testTheCompactRecordingReadsHourlyThenSixHourly() throws {
        let forecast = try METNorwayReader.read(try recording("compact-lat60-lon11-2024-02-04.json"))
        XCTAssertEqual(forecast.steps.count, 85)
        XCTAssertEqual(forecast.updatedAt, try Date("2024-02-04T01:35:05Z", strategy: Date.ISO8601FormatStyle()))
        let first = try XCTUnwrap(forecast.steps.first)
        XCTAssertEqual(first.time, try Date("2024-02-04T01:00:00Z", strategy: Date.ISO8601FormatStyle()))
        XCTAssertEqual(first.temperature, 0.7)
        XCTAssertEqual(first.windSpeed, 5.6)
        XCTAssertEqual(first.windDirection, 238.8)
        XCTAssertEqual(first.humidity, 70.6)
        XCTAssertEqual(first.pressure, 996.1)
        XCTAssertEqual(first.periodHours, 1)
        XCTAssertEqual(forecast.steps.filter { $0.periodHours == 1 }.count, 53, "next_1_hours while hourly data exists")
        XCTAssertFalse(forecast.steps.filter { $0.periodHours == 6 }.isEmpty, "then next_6_hours")
        XCTAssertNil(forecast.steps.last?.periodHours, "the last step has only instant values")
        XCTAssertFalse(forecast.steps.compactMap(\.symbol).contains { $0.hasSuffix("_day") || $0.hasSuffix("_night") })
        XCTAssertTrue(forecast.steps.compactMap(\.symbol).allSatisfy { METSymbol.weatherSymbol3($0) != nil }, "every symbol maps")
    }

    func testTheCompleteRecordingReadsToo() throws {
        let wrapper = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try recording("complete-with-headers-lat51.5-lon-0.1-2020-07-20.json"))) as? [String: Any])
        let body = try JSONSerialization.data(withJSONObject: try XCTUnwrap(wrapper["data"]))
        let forecast = try METNorwayReader.read(Array(body))
        XCTAssertEqual(forecast.steps.filter { $0.periodHours == 1 }.count, 55, "56 hourly steps, the last without its hour")
        XCTAssertEqual(HTTPDate.parse("Mon, 20 Jul 2020 12:16:23 GMT"), Date(timeIntervalSince1970: 1_595_247_383))
    }

    func testWhatIsNotAForecastIsRefused() {
        XCTAssertThrowsError(try METNorwayReader.read(Array("<html/>".utf8))) { XCTAssertEqual($0 as? METNorwayError, .unreadable("not a Locationforecast feature")) }
        XCTAssertThrowsError(try METNorwayReader.read(Array(#"{"properties":{"timeseries":[]}}"#.utf8))) { XCTAssertEqual($0 as? METNorwayError, .empty) }
        XCTAssertThrowsError(try METNorwayReader.read(Array(#"{"properties":{"timeseries":[{"time":"yesterday"}]}}"#.utf8))) {
            XCTAssertEqual($0 as? METNorwayError, .empty)
        }
    }

    func testEverySymbolOfMETsLegendMapsOntoPiersTable() {
        let bases = ["clearsky", "fair", "partlycloudy", "cloudy", "fog"]
        let kinds = ["rain", "sleet", "snow"]
        var names = bases
        for kind in kinds {
            for intensity in ["light", "", "heavy"] {
                names += [intensity + kind, intensity + kind + "showers", intensity + kind + "andthunder", intensity + kind + "showersandthunder"]
            }
        }
        for name in names {
            let code = METSymbol.weatherSymbol3(name)
            XCTAssertNotNil(WeatherSymbol(weatherSymbol3: code), name)
        }
        XCTAssertEqual(WeatherSymbol(weatherSymbol3: METSymbol.weatherSymbol3(METNorwayReader.baseSymbol("lightssleetshowersandthunder_day"))), .thunderstorm)
        XCTAssertEqual(WeatherSymbol(weatherSymbol3: METSymbol.weatherSymbol3("fair")), .clear)
        XCTAssertEqual(WeatherSymbol(weatherSymbol3: METSymbol.weatherSymbol3("heavysnow")), .heavy_snow)
        XCTAssertEqual(WeatherSymbol(weatherSymbol3: METSymbol.weatherSymbol3("lightsleet")), .sleet)
        XCTAssertNil(METSymbol.weatherSymbol3("volcanicash"))
    }

    // MARK: The fallback

    private func service(
        contact: String? = "ops@example.org", preferStaleFMI: TimeInterval = 3 * 3600, metBudget: BudgetSettings = .init(), on given: PostgresPool? = nil
    ) -> ForecastService {
        let pool = given ?? pool!
        let fallback = METNorwayFallback(
            client: METNorwayClient(url: upstream.metNorwayURL, userAgent: UserAgent.identifying(product: "Pier/0.1.0", contact: contact), client: UpstreamClient()),
            store: METNorwayStore(pool: pool), budget: metBudget)
        let settings = ForecastService.Settings(neighbourKilometres: 10, preferStaleFMI: .seconds(Int64(preferStaleFMI)))
        return ForecastService(client: fmi(), store: WeatherStore(pool: pool), settings: settings, fallback: fallback)
    }

    /// Migration 0031 moved MET Norway's copies from `metno_forecasts` into the shared answer store: a copy the
    /// previous schema held is served after the upgrade, before its Expires, without asking MET.
    func testCopiesKeptByThePreviousSchemaAreServedAfterTheUpgrade() async throws {
        upstream.set(.fmi, .status(500))
        let cell = GridCell(latitude: 60.17, longitude: 24.94)
        _ = try await service().forecast(for: cell)
        XCTAssertEqual(metRequests.count, 1)
        let rows = try await pool.query("SELECT key, body, fetched_at, expires_at FROM upstream_answers WHERE kind = 'metno'")
        let kept = try XCTUnwrap(rows.first)
        let body = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(try kept.decode(String.self, "body").utf8)) as? [String: Any])
        let steps = try JSONSerialization.data(withJSONObject: try XCTUnwrap(body["steps"]))
        let indices = try kept.decode(String.self, "key").split(separator: ",").compactMap { Int($0) }

        let previous = try TestDatabase.create()
        defer { previous.drop() }
        let old = try await previous.migratedPool(through: 30)
        _ = try await old.execute(
            "INSERT INTO metno_forecasts (cell_lat, cell_lon, fetched_at, expires, last_modified, hours) VALUES ($1, $2, $3, $4, $5, $6::jsonb)",
            [indices[0], indices[1], try kept.decode(Date.self, "fetched_at"), try kept.decode(Date.self, "expires_at"), body["last_modified"] as? String,
             String(decoding: steps, as: UTF8.self)])
        old.close()
        let upgraded = try await previous.migratedPool()
        defer { upgraded.close() }
        let answer = try await service(on: upgraded).forecast(for: cell)
        XCTAssertEqual(answer.provenance, .metNorway)
        XCTAssertEqual(metRequests.count, 1, "served from the copy moved by the migration")
        let left = try await upgraded.query("SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'metno_forecasts'")
        XCTAssertEqual(try left.first?.decode(Int.self, "n"), 0, "the table is gone")
    }

    private var metRequests: [FixtureUpstream.Request] { upstream.requests(.metNorway) }

    private func storeFMI(_ cell: GridCell, hoursAgo: Double) async throws {
        let fetched = Date().addingTimeInterval(-hoursAgo * 3600)
        let hours = (0..<48).map { Forecast.Hour(validAt: fetched.addingTimeInterval(Double($0) * 3600), temperature: 1, symbolCode: 1) }
        try await WeatherStore(pool: pool).store(Forecast(cell: cell, fetchedAt: fetched, hours: hours))
    }

    func testWhenFMIFailsMETNorwayAnswersWithinItsTerms() async throws {
        upstream.set(.fmi, .status(500))
        let cell = GridCell(latitude: 60.17, longitude: 24.94)
        let forecasts = service()
        let answer = try await forecasts.forecast(for: cell)
        XCTAssertEqual(answer.provenance, .metNorway)
        XCTAssertEqual(answer.forecast.source, .metNorway)
        XCTAssertFalse(answer.stale)
        XCTAssertEqual(HourlyForecast.hours(from: answer.forecast.hours, now: Date()).count, 48)
        let request = try XCTUnwrap(metRequests.first)
        XCTAssertEqual(request.query["lat"], "60.1700", "at most four decimals")
        XCTAssertEqual(request.query["lon"], "24.9400")
        XCTAssertEqual(request.headers["user-agent"], "Pier/0.1.0 (ops@example.org)")
        XCTAssertTrue(request.headers["accept-encoding"]?.contains("gzip") ?? false, "gzip accepted")
        // Not asked again before Expires — not by this process, not by another replica (PostgreSQL).
        _ = try await forecasts.forecast(for: cell)
        let replica = try await service().forecast(for: cell)
        XCTAssertEqual(replica.provenance, .metNorway)
        XCTAssertEqual(replica.forecast.hours, answer.forecast.hours, "MET's steps come back from PostgreSQL as they went in")
        XCTAssertEqual(metRequests.count, 1)
        // The daily forecast adds six-hour amounts past the hourly part, and the body credits MET Norway.
        XCTAssertGreaterThanOrEqual(DailyForecast.days(from: answer.forecast.hours, timeZone: TimeZone(identifier: "Europe/Helsinki")!, today: CalendarDate(Date(), in: TimeZone(identifier: "Europe/Helsinki")!)).count, 9)
        XCTAssertTrue(JSONWriter.text { WeatherResponse.source(.metNorway, to: &$0) }.contains("MET Norway"))
    }

    func testAfterExpiresMETIsAskedConditionallyAnd304KeepsTheCopy() async throws {
        upstream.set(.fmi, .status(500))
        upstream.set(.metNorway, .expired)
        let cell = GridCell(latitude: 61.5, longitude: 23.76)
        let forecasts = service()
        let first = try await forecasts.forecast(for: cell)
        let second = try await forecasts.forecast(for: cell)
        XCTAssertEqual(metRequests.count, 2)
        XCTAssertNil(metRequests[0].headers["if-modified-since"])
        XCTAssertNotNil(metRequests[1].headers["if-modified-since"], "the Last-Modified received, sent back")
        XCTAssertEqual(second.provenance, .metNorway)
        XCTAssertEqual(second.forecast.hours, first.forecast.hours)
    }

    func testARecentStaleFMIForecastIsPreferredAnOldOneGivesWay() async throws {
        upstream.set(.fmi, .status(500))
        let recent = GridCell(latitude: 62.0, longitude: 25.0)
        let old = GridCell(latitude: 63.0, longitude: 26.0)
        try await storeFMI(recent, hoursAgo: 2)
        try await storeFMI(old, hoursAgo: 4)
        let forecasts = service()
        let stale = try await forecasts.forecast(for: recent)
        XCTAssertEqual(stale.provenance, .stale)
        XCTAssertEqual(stale.forecast.source, .fmi)
        XCTAssertEqual(metRequests.count, 0)
        let replaced = try await forecasts.forecast(for: old)
        XCTAssertEqual(replaced.provenance, .metNorway)
        XCTAssertEqual(metRequests.count, 1)
        // MET throttling: the old FMI forecast stands, and MET is not asked while paused.
        upstream.set(.metNorway, .rateLimited(retryAfter: 120))
        let throttled = GridCell(latitude: 64.0, longitude: 27.0)
        try await storeFMI(throttled, hoursAgo: 5)
        let kept = try await forecasts.forecast(for: throttled)
        XCTAssertEqual(kept.provenance, .stale)
        let other = GridCell(latitude: 65.0, longitude: 28.0)
        do {
            _ = try await forecasts.forecast(for: other)
            XCTFail("nothing held and MET paused")
        } catch is ForecastService.Unavailable {}
        XCTAssertEqual(metRequests.count, 2, "paused after the 429")
    }

    func testWithoutAContactMETRefusesAndIsNotAskedAgainForAnHour() async throws {
        upstream.set(.fmi, .status(500))
        let forecasts = service(contact: nil)
        for latitude in [60.5, 60.6] {
            do {
                _ = try await forecasts.forecast(for: GridCell(latitude: latitude, longitude: 25.0))
                XCTFail("MET refuses a User-Agent without contact")
            } catch is ForecastService.Unavailable {}
        }
        XCTAssertEqual(metRequests.count, 1)
        let rows = try await pool.query("SELECT count(*)::int AS n FROM upstream_answers WHERE kind = 'metno'")
        XCTAssertEqual(try rows.first?.decode(Int.self, "n"), 0)
    }

    func testAClientOverItsFMIShareIsNotSentToMET() async throws {
        let fallback = METNorwayFallback(
            client: METNorwayClient(url: upstream.metNorwayURL, userAgent: "Pier/0.1.0 (ops@example.org)", client: UpstreamClient()),
            store: METNorwayStore(pool: pool), budget: .init())
        let settings = ForecastService.Settings(neighbourKilometres: 0, budget: .init(ratePerMinute: 60, burst: 4, clientShare: 0.25))
        let forecasts = ForecastService(client: fmi(), store: WeatherStore(pool: pool), settings: settings, fallback: fallback)
        let client = Spender(try XCTUnwrap(IPAddress("203.0.113.7")))
        _ = try await forecasts.forecast(for: GridCell(latitude: 60.3, longitude: 25.0), client: client)
        do {
            _ = try await forecasts.forecast(for: GridCell(latitude: 60.4, longitude: 25.0), client: client)
            XCTFail("the client's share is one of four")
        } catch let unavailable as ForecastService.Unavailable {
            XCTAssertEqual(unavailable.cause, .clientShare)
        }
        XCTAssertEqual(metRequests.count, 0)
    }
}
