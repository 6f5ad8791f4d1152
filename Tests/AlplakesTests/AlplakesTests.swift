@testable import Alplakes
@testable import AlplakesFormat
import Basics
import DatabaseTesting
import Foundation
import HTTPServer
import Parsing
import Postgres
import Scheduling
import UpstreamHTTP
import UpstreamTesting
import XCTest


/// Shaped like the Next Wave app's `AlplakesProfileResponse` and `AlplakesPointResponse` (from the fixture
/// README's description of pfederi/Next-Wave `AlplakesAPI.swift`).
struct AppProfile: Decodable {
    struct Depth: Decodable { let data: [Double]; let unit: String }
    struct Variable: Decodable { let data: [Double?]; let unit: String; let description: String }
    struct Variables: Decodable { let T: Variable }
    let time: String
    let depth: Depth
    let variables: Variables
}

struct AppPoint: Decodable {
    struct Depth: Decodable { let data: Double; let unit: String }
    struct Variable: Decodable { let data: [Double?]; let unit: String }
    struct Variables: Decodable { let T: Variable }
    let time: [String]
    let depth: Depth
    let variables: Variables
}

struct PierLakeTemperatures: Decodable {
    struct Lake: Decodable {
        struct Step: Decodable { let time: String; let temperature: Double? }
        let key: String
        let name: String
        let surface_temperature: Double?
        let at: String
        let forecast: [Step]
    }
    let lakes: [Lake]
    let lastUpdated: String
}

final class AlplakesDocumentTests: XCTestCase {
    func testProfilesGiveTheLastNonNullSurfaceValue() throws {
        for (lake, surface) in [("upperzurich", 21.33), ("geneva", 11.4), ("lucernealpnachersee", 22.325)] {
            let body = try Fixtures.bytes("alplakes", "profile-\(lake).json")
            let profile = try AlplakesProfile(parsing: body)
            XCTAssertEqual(try XCTUnwrap(profile.surfaceTemperature), surface, accuracy: 1e-9, lake)
            XCTAssertNoThrow(try JSONDecoder().decode(AppProfile.self, from: Data(body)))
        }
    }

    func testASeriesIsRestrictedToAWindowKeepingTheUpstreamsBytes() throws {
        let body = try Fixtures.bytes("alplakes", "point-upperzurich.json")
        let series = try AlplakesSeries(parsing: body)
        XCTAssertEqual(series.steps.count, 16)
        XCTAssertEqual(series.steps.filter { $0.temperature == nil }.count, 2)
        let start = try XCTUnwrap(AlplakesTime.path("202607050000")), end = try XCTUnwrap(AlplakesTime.path("202607051200"))
        let restricted = series.restricted(from: start, to: end)
        let app = try JSONDecoder().decode(AppPoint.self, from: Data(restricted))
        XCTAssertEqual(app.time.count, 5)
        XCTAssertEqual(app.time.first, "2026-07-05T00:00:00.000+00:00")
        XCTAssertEqual(app.time.count, app.variables.T.data.count)
        // Only the two arrays changed.
        var original = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
        var served = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(restricted)) as? [String: Any])
        for key in ["time", "variables"] { original[key] = nil; served[key] = nil }
        XCTAssertEqual(
            try JSONSerialization.data(withJSONObject: served, options: .sortedKeys), try JSONSerialization.data(withJSONObject: original, options: .sortedKeys))
    }

    func testTimesWithAndWithoutFractionsAndBadShapes() throws {
        XCTAssertEqual(AlplakesTime.answer("2026-07-04T12:00:00+00:00"), AlplakesTime.answer("2026-07-04T12:00:00.000+00:00"))
        XCTAssertNotNil(AlplakesTime.answer("2026-07-04T12:00:00+00:00"))
        XCTAssertNil(AlplakesTime.path("202602301200"))
        XCTAssertNil(AlplakesTime.path("20260704120"))
        XCTAssertEqual(AlplakesTime.path(try XCTUnwrap(AlplakesTime.path("202607041207"))), "202607041207")
        let plain = #"{"time":["2026-07-04T15:00:00+00:00"],"depth":{"data":0.0,"unit":"m"},"variables":{"T":{"data":[21.2],"unit":"degC"}}}"#
        XCTAssertEqual(try AlplakesSeries(parsing: Array(plain.utf8)).steps.first?.temperature, 21.2)
        for text in [
            #"{"detail":"simstrat simulation results are not available"}"#, "<html></html>",
            #"{"time":"2026-07-04T12:00:00+00:00","depth":{"data":[1.0,null]},"variables":{"T":{"data":[1.0,2.0]}}}"#,
            #"{"time":"2026-07-04T12:00:00+00:00","depth":{"data":[1.0,0.0]},"variables":{"T":{"data":[1.0]}}}"#,
        ] {
            XCTAssertThrowsError(try AlplakesProfile(parsing: Array(text.utf8)), text)
        }
        XCTAssertThrowsError(try AlplakesSeries(parsing: Array(#"{"time":["yesterday"],"depth":{"data":0},"variables":{"T":{"data":[1]}}}"#.utf8)))
        // Kelvin, or a fill value, is a changed answer, not a temperature.
        XCTAssertThrowsError(try AlplakesSeries(parsing: Array(plain.replacingOccurrences(of: "21.2", with: "294.35").utf8)))
        XCTAssertThrowsError(try AlplakesProfile(parsing: Array(#"{"time":"2026-07-04T12:00:00+00:00","depth":{"data":[1.0,0.0]},"variables":{"T":{"data":[-999.0,21.0]}}}"#.utf8)))
    }
}

/// The scheduled fetch, the store and the routes against real PostgreSQL and a local Alplakes.
final class AlplakesServiceTests: ServiceTestCase {
    func service(_ lakes: [String] = FixtureUpstream.alplakesLakes) -> AlplakesService {
        var settings = AlplakesService.Settings()
        settings.lakes = lakes
        settings.pause = .zero
        return AlplakesService(
            client: AlplakesClient(baseURL: upstream.alplakesURL, client: UpstreamClient(configuration: .init(timeout: .seconds(5)))),
            store: AlplakesStore(pool: pool), settings: settings)
    }

    func get(_ routes: AlplakesRoutes, _ path: String) throws -> HTTPResponse {
        var router = Router()
        routes.register(in: &router)
        guard case .found(let handler, _, _, let parameters, _) = router.match(.get, path: path), case .immediate(let answer) = handler else {
            XCTFail("no route for \(path)")
            return HTTPResponse(status: .notFound)
        }
        var request = HTTPRequest(method: .get, target: path, path: path)
        request.pathParameters = parameters
        do { return try answer(request) } catch let error as any HTTPErrorConvertible {
            return error.httpError.response
        }
    }

    func testAFetchCostsAtMostTwoCallsPerLakeAndAFailedLakeKeepsItsData() async throws {
        let service = service(FixtureUpstream.alplakesLakes + ["nosuchlake"])
        do {
            _ = try await service.refresh()
            XCTFail("a failed lake fails the run")
        } catch let error as FetchError {
            XCTAssertEqual(error.outcome, .failed)
            XCTAssertTrue("\(error)".contains("nosuchlake"))
        }
        XCTAssertEqual(upstream.requests(.alplakes).count, 3 * 2 + 1)
        XCTAssertEqual(Set(service.lakes.keys), Set(FixtureUpstream.alplakesLakes))
        // A garbage answer fails the lakes (suspect) and replaces nothing.
        upstream.set(.alplakes, .json(Array(#"{"time":"soon"}"#.utf8)))
        let before = service.lakes["geneva"]?.fetchedAt
        do {
            _ = try await service.refresh()
            XCTFail("garbage fails the run")
        } catch let error as FetchError {
            XCTAssertEqual(error.outcome, .suspect)
        }
        XCTAssertEqual(service.lakes["geneva"]?.fetchedAt, before)
        let health = try OrderedJSONEncoder.string(service.health())
        XCTAssertTrue(health.contains(#""geneva":{"last_success":""#), health)
        XCTAssertTrue(health.contains("the Alplakes answer has an unexpected shape"), health)
        // A restart serves at once from PostgreSQL, without asking.
        let calls = upstream.requests(.alplakes).count
        let restarted = self.service()
        try await restarted.load()
        XCTAssertEqual(Set(restarted.lakes.keys), Set(FixtureUpstream.alplakesLakes))
        XCTAssertEqual(upstream.requests(.alplakes).count, calls)
    }

    func testLakeTemperaturesEqualWhatTheUpstreamServed() async throws {
        let service = service()
        _ = try await service.refresh()
        let routes = AlplakesRoutes(service: service)
        let response = try get(routes, "/v1/lake-temperatures")
        XCTAssertEqual(response.status, .ok)
        let answer = try JSONDecoder().decode(PierLakeTemperatures.self, from: Data(response.body))
        XCTAssertEqual(answer.lakes.map(\.key), FixtureUpstream.alplakesLakes)
        XCTAssertEqual(answer.lakes.map(\.name), ["Zürichsee", "Genfersee", "Vierwaldstättersee"])
        let now = Date()
        let client = UpstreamClient()
        for lake in answer.lakes {
            // What the upstream answers for the app's own requests at this moment.
            let stamp = AlplakesTime.path(now)
            let profile = try await client.get("\(upstream.alplakesURL)/simulations/1d/profile/simstrat/\(lake.key)/\(stamp)").body
            let app = try JSONDecoder().decode(AppProfile.self, from: Data(profile))
            XCTAssertEqual(lake.surface_temperature, app.variables.T.data.last { $0 != nil } ?? nil, lake.key)
            let end = AlplakesTime.path(now.addingTimeInterval(48 * 3600))
            let point = try await client.get("\(upstream.alplakesURL)/simulations/1d/point/simstrat/\(lake.key)/\(stamp)/\(end)/0").body
            let series = try JSONDecoder().decode(AppPoint.self, from: Data(point))
            let expected = zip(series.time, series.variables.T.data).compactMap { time, value -> (Date, Double?)? in
                guard let date = AlplakesTime.answer(time), date >= now, date <= now.addingTimeInterval(48 * 3600) else { return nil }
                return (date, value)
            }
            XCTAssertGreaterThanOrEqual(expected.count, 14, lake.key)
            XCTAssertEqual(lake.forecast.map(\.time), expected.map { Timestamp.iso8601($0.0) }, lake.key)
            XCTAssertEqual(lake.forecast.map(\.temperature), expected.map(\.1), lake.key)
        }
        XCTAssertEqual(answer.lakes.first { $0.key == "upperzurich" }?.forecast.contains { $0.temperature == nil }, true, "nulls are kept")
    }

    func testTheDropInRoutesAnswerAsTheUpstreamDoes() async throws {
        let service = service()
        let routes = AlplakesRoutes(service: service)
        let early = try get(routes, "/v1/alplakes/simulations/1d/profile/simstrat/geneva/202611241200")
        XCTAssertEqual(early.status, .serviceUnavailable)
        XCTAssertNotNil(early.headers["retry-after"])
        _ = try await service.refresh()
        let profile = try get(routes, "/v1/alplakes/simulations/1d/profile/simstrat/geneva/202001010000")
        XCTAssertEqual(profile.status, .ok, "any minute gets the profile held")
        XCTAssertEqual(profile.body, service.lakes["geneva"]?.profile.body)
        XCTAssertNoThrow(try JSONDecoder().decode(AppProfile.self, from: Data(profile.body)))
        let now = Date()
        let path = "/v1/alplakes/simulations/1d/point/simstrat/upperzurich/\(AlplakesTime.path(now))/\(AlplakesTime.path(now.addingTimeInterval(24 * 3600)))/0"
        let point = try get(routes, path)
        XCTAssertEqual(point.status, .ok)
        let series = try JSONDecoder().decode(AppPoint.self, from: Data(point.body))
        XCTAssertTrue((7...8).contains(series.time.count), "\(series.time.count) steps in 24 h")
        for (path, status) in [
            ("/v1/alplakes/simulations/1d/profile/simstrat/atlantis/202611241200", 404),
            ("/v1/alplakes/simulations/1d/profile/simstrat/geneva/2026112412", 400),
            ("/v1/alplakes/simulations/1d/point/simstrat/geneva/202611241200/202611251200/5", 400),
            ("/v1/alplakes/simulations/1d/point/simstrat/geneva/202611251200/202611241200/0", 400),
            ("/v1/alplakes/simulations/1d/point/simstrat/geneva/202611241200/2026113/0", 400),
        ] {
            let response = try get(routes, path)
            XCTAssertEqual(response.status.code, status, path)
            XCTAssertTrue(String(decoding: response.body, as: UTF8.self).hasPrefix(#"{"error":"#), path)
        }
    }
}
