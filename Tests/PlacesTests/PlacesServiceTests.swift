import Basics
import DatabaseTesting
import Feature
import Foundation
import HTTPServer
import Limits
import OnDemand
@testable import Places
import Postgres
import Scheduling
import SharedAnswers
import UpstreamHTTP
import UpstreamTesting
import XCTest


/// The service against real PostgreSQL and a local Geoapify serving the fixtures.
final class PlacesServiceTests: ServiceTestCase {    let clock = SharedValue<Double>(1000)
    static let key = "geoapify-secret-key-0123"

    typealias Service = PlacesService

    func service(creditsPerDay: Int? = nil, board: SourceStatusBoard? = nil, _ configure: (inout Service.Settings) -> Void = { _ in }) -> Service {
        var settings = Service.Settings()
        settings.upstream.budget = .init(ratePerMinute: 6000, burst: 100, clientShare: 1)
        settings.upstream.perDay = creditsPerDay
        configure(&settings)
        let clock = clock
        return Service(
            client: GeoapifyClient(
                baseURL: upstream.geoapifyURL, key: Self.key, client: UpstreamClient(configuration: .init(timeout: .seconds(5))), product: "Pier/test",
                ttl: (settings.placesTTL, settings.geocodeTTL)),
            store: SharedAnswerStore(pool: pool),
            upstream: OnDemandUpstream(
                name: "Geoapify", metric: "geoapify", settings: settings.upstream,
                quota: creditsPerDay.map { DailyQuota(upstream: "geoapify", limit: $0, pool: pool) }, clock: { clock.value }, metrics: nil),
            settings: settings, board: board, runner: nil, metrics: nil)
    }

    /// The app's request around Nürnberg's old town, `metresNorth` further north.
    func request(metresNorth: Double = 0, limit: Int = 50) -> PlacesKey {
        PlacesKey(
            latitude: 49.4539 + metresNorth / 111_195, longitude: 11.0775,
            parameters: .init(radius: 5000, categories: ["entertainment.museum", "leisure.park", "tourism.attraction"], limit: limit, lang: "de"))
    }

    func decode(_ response: OnDemandResponse) throws -> AppPlaces {
        XCTAssertEqual(response.response.status, .ok, String(decoding: response.response.body, as: UTF8.self))
        return try JSONDecoder().decode(AppPlaces.self, from: Data(response.response.body))
    }

    func testRequestsThirtyMetresApartShareOneCallAndARestartCostsNone() async throws {
        let service = service()
        let first = try decode(await service.places(for: request(), client: nil))
        XCTAssertEqual(first.features.count, 14)
        let asked = try XCTUnwrap(upstream.requests(.geoapify).first)
        XCTAssertEqual(asked.path, "/v2/places")
        XCTAssertEqual(asked.query["filter"], "circle:11.07750,49.45390,5000", "longitude first, as Geoapify wants")
        XCTAssertEqual(asked.query["categories"], "entertainment.museum,leisure.park,tourism.attraction")
        XCTAssertEqual(asked.query["limit"], "50")
        XCTAssertEqual(asked.query["lang"], "de")
        XCTAssertEqual(asked.query["apiKey"], Self.key)
        // 30 m away (and again, from memory): the same answer, no call.
        let near = await service.places(for: request(metresNorth: 30), client: nil)
        XCTAssertEqual(try decode(near).features.count, 14)
        XCTAssertNotNil(service.cachedPlaces(for: request(metresNorth: 30)), "the neighbour is remembered for the fast path")
        XCTAssertEqual(upstream.requests(.geoapify).count, 1)
        // 150 m away, or another limit: their own calls.
        _ = await service.places(for: request(metresNorth: 150), client: nil)
        _ = await service.places(for: request(limit: 20), client: nil)
        XCTAssertEqual(upstream.requests(.geoapify).count, 3)
        // A restart (a new process on the same database) costs no call, for the point or its neighbours.
        let restarted = self.service()
        try await restarted.load()
        let answer1 = await restarted.places(for: request(metresNorth: -40), client: nil)
        XCTAssertEqual(try decode(answer1).features.count, 14)
        let answer2 = await restarted.places(for: request(metresNorth: 180), client: nil)
        XCTAssertEqual(try decode(answer2).features.count, 14)
        XCTAssertEqual(upstream.requests(.geoapify).count, 3)
    }

    func testConcurrentNeighboursWaitForOneCall() async throws {
        let service = service()
        let keys = (0..<20).map { request(metresNorth: Double($0 * 3)) }
        let statuses = await withTaskGroup(of: HTTPStatus.self) { group in
            for key in keys { group.addTask { await service.places(for: key, client: nil).response.status } }
            return await group.reduce(into: [HTTPStatus]()) { $0.append($1) }
        }
        XCTAssertEqual(Set(statuses), [.ok])
        XCTAssertEqual(upstream.requests(.geoapify).count, 1)
    }

    func testCreditsAreCountedInPostgreSQLPerTwentyPlacesAsked() async throws {
        let service = service(creditsPerDay: 7)
        _ = await service.places(for: request(), client: nil)
        let servicePlaces = try OrderedJSONEncoder.string(service.health(for: "places"))
        XCTAssertEqual(servicePlaces.contains(#""used_today":3"#), true, servicePlaces)
        // Another replica draws on the same count: 3 more (6 of 7).
        let replica = self.service(creditsPerDay: 7)
        _ = await replica.places(for: request(metresNorth: 500), client: nil)
        // One credit left: a places call (3) is refused without asking; a geocoding call (1) still goes.
        let refused = await replica.places(for: request(metresNorth: 1000), client: nil)
        XCTAssertEqual(refused.response.status, .serviceUnavailable)
        XCTAssertNotNil(refused.response.headers["retry-after"])
        XCTAssertTrue(String(decoding: refused.response.body, as: UTF8.self).contains("daily quota"))
        let geocode = try GeocodeKey(try XCTUnwrap(QueryParameters(raw: "text=N%C3%BCrnberg&lang=de")))
        let answer3 = await replica.geocode.response(for: geocode, client: nil)
        XCTAssertEqual(try decode(answer3).features.count, 2)
        XCTAssertEqual(upstream.requests(.geoapify).count, 3)
        let used = try await pool.query("SELECT used FROM upstream_quota WHERE upstream = 'geoapify'").first?.decode(Int.self, "used")
        XCTAssertEqual(used, 7)
        // The refused point's neighbour that is stored is still served.
        let answer4 = await replica.places(for: request(metresNorth: 520), client: nil)
        XCTAssertEqual(try decode(answer4).features.count, 14)
    }

    func testFailuresServeTheStaleAnswerElse503AndGarbageIsNeverStored() async throws {
        let service = service { $0.placesTTL = .milliseconds(1) }
        _ = await service.places(for: request(), client: nil)
        try await Task.sleep(for: .milliseconds(20))
        upstream.set(.geoapify, .status(500))
        let stale = await service.places(for: request(), client: nil)
        XCTAssertEqual(try decode(stale).features.count, 14)
        XCTAssertEqual(stale.response.headers["x-pier-stale"], "places")
        XCTAssertNotNil(stale.response.headers["warning"])
        // Nothing stored for a point far away: 503 with Retry-After.
        let far = await service.places(for: request(metresNorth: 5000), client: nil)
        XCTAssertEqual(far.response.status, .serviceUnavailable)
        XCTAssertEqual(far.response.headers["retry-after"], "60")
        // Garbage: 503, not stored.
        upstream.set(.geoapify, .garbage)
        let answer5 = await service.places(for: request(metresNorth: 9000), client: nil).response.status
        XCTAssertEqual(answer5, .serviceUnavailable)
        let rows = try await pool.query("SELECT count(*) AS n FROM upstream_answers WHERE kind = 'places'").first?.decode(Int.self, "n")
        XCTAssertEqual(rows, 1)
    }

    func testA429PausesCallsAndA401IsShownOnHealth() async throws {
        let board = SourceStatusBoard()
        board.register("places", staleAfter: .seconds(86_400), onDemand: true)
        let service = service(board: board)
        upstream.set(.geoapify, .rateLimited(retryAfter: 30))
        let limited = await service.places(for: request(), client: nil)
        XCTAssertEqual(limited.response.status, .serviceUnavailable)
        XCTAssertEqual(limited.response.headers["retry-after"], "30")
        upstream.set(.geoapify, .normal)
        // Paused: the geocoding route shares Geoapify's gate and is not sent either.
        let geocode = try GeocodeKey(try XCTUnwrap(QueryParameters(raw: "text=Berlin")))
        let answer6 = await service.geocode.response(for: geocode, client: nil).response.status
        XCTAssertEqual(answer6, .serviceUnavailable)
        XCTAssertEqual(upstream.requests(.geoapify).count, 1)
        clock.update { $0 += 31 }
        let answer7 = await service.places(for: request(), client: nil).response.status
        XCTAssertEqual(answer7, .ok)
        upstream.set(.geoapify, .status(401))
        let refused = await service.geocode.response(for: geocode, client: nil)
        XCTAssertEqual(refused.response.status, .serviceUnavailable)
        XCTAssertEqual(refused.response.headers["retry-after"], "600")
        let serviceGeocode = try OrderedJSONEncoder.string(service.health(for: "geocode"))
        XCTAssertTrue(serviceGeocode.contains(#""paused_s":600"#), serviceGeocode)
        let servicePlaces = try OrderedJSONEncoder.string(service.health(for: "places"))
        XCTAssertFalse(servicePlaces.contains(Self.key))
    }

    func testARequestGeoapifyRefusesIsA400WithItsMessageRemembered() async throws {
        upstream.set(.geoapify, .status(400))
        let service = service()
        let refused = await service.places(for: request(), client: nil)
        XCTAssertEqual(refused.response.status, .badRequest)
        XCTAssertTrue(String(decoding: refused.response.body, as: UTF8.self).hasPrefix(#"{"error":"Geoapify refused this request"#))
        _ = await service.places(for: request(), client: nil)
        XCTAssertEqual(upstream.requests(.geoapify).count, 1)
    }

    func testGeocodingIsCachedPerNormalisedText() async throws {
        let service = service()
        for raw in ["text=N%C3%BCrnberg&lang=de", "text=%20n%C3%BCrnberg", "text=N%C3%9CRNBERG&apiKey=ignored"] {
            let key = try GeocodeKey(try XCTUnwrap(QueryParameters(raw: Substring(raw))))
            let answer = try decode(await service.geocode.response(for: key, client: nil))
            XCTAssertEqual(answer.features.first?.geometry.coordinates.count, 2)
        }
        XCTAssertEqual(upstream.requests(.geoapify).count, 1)
        XCTAssertEqual(upstream.requests(.geoapify).first?.query["text"], "nürnberg")
        let nothing = try GeocodeKey(try XCTUnwrap(QueryParameters(raw: "text=Atlantis")))
        let answer8 = await service.geocode.response(for: nothing, client: nil)
        XCTAssertEqual(try decode(answer8).features.count, 0)
    }

    /// Answers are deleted their retention after they expire (enforced on a store, at most every ten minutes
    /// per process).
    func testExpiredAnswersAreDeletedAfterTheirRetention() async throws {
        let first = service {
            $0.placesTTL = .milliseconds(1)
            $0.retention = .zero
        }
        _ = await first.places(for: request(), client: nil)
        try await Task.sleep(for: .milliseconds(20))
        let second = service {
            $0.placesTTL = .seconds(3600)
            $0.retention = .zero
        }
        _ = await second.places(for: request(metresNorth: 5000), client: nil)
        let keys = try await pool.query("SELECT key FROM upstream_answers").map { try $0.decode(String.self, "key") }
        XCTAssertEqual(keys, [request(metresNorth: 5000).storageKey])
        let secondPlaces = try OrderedJSONEncoder.string(second.health(for: "places"))
        XCTAssertTrue(secondPlaces.contains(#""stored":1"#), secondPlaces)
    }

    /// `max-age` is the freshness left: an answer held for days is rendered again as time passes.
    func testMaxAgeCountsDownWhileAnAnswerIsHeld() async throws {
        let service = service()
        let first = await service.places(for: request(), client: nil)
        XCTAssertEqual(first.response.headers["cache-control"], "public, max-age=604800")
        let later = try XCTUnwrap(service.cachedPlaces(for: request(), now: Date().addingTimeInterval(2 * 3600)))
        let maxAge = try XCTUnwrap(Int(try XCTUnwrap(later.response.headers["cache-control"]).replacingOccurrences(of: "public, max-age=", with: "")))
        XCTAssertTrue((597_590...597_600).contains(maxAge), "\(maxAge)")
        XCTAssertEqual(later.response.headers["etag"], first.response.headers["etag"], "the same answer")
    }
}
