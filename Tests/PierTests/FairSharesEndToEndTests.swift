import Foundation
import HTTPTesting
import Postgres
import UpstreamTesting
import XCTest

/// Fair shares through the real binary, PostgreSQL and the local Geoapify and Wikipedia (docs/operations/keys-and-budgets.md, "Fair
/// shares"): clients are told apart by the right-most `X-Forwarded-For` entry the loopback proxy vouches for.
final class FairSharesEndToEndTests: EndToEndTestCase {
    /// 200 credits a day: an address may use 10, a network 20; 60 are kept for answers more than one client
    /// asked for. The per-second budget is lifted so that only the day decides.
    private func startPlaces(_ extra: [String: String] = [:]) throws -> PierProcess {
        try startPier([
            "PIER_FETCH": "off", "PIER_GEOAPIFY_KEY": "test-key", "PIER_GEOAPIFY_CREDITS_PER_DAY": "200",
            "PIER_GEOAPIFY_REQUESTS_PER_SECOND": "1000", "PIER_GEOAPIFY_BURST": "1000",
        ].merging(extra) { $1 })
    }

    /// A new point each time (1 km apart: no reuse of a nearby answer), one credit each.
    private func places(_ pier: PierProcess, _ index: Int, from client: String) throws -> RawResponse {
        try RawClient.request(
            port: pier.port, "/v1/places?lat=\(47.0 + Double(index) * 0.01)&lon=8.5&radius=1000&categories=tourism.attraction&limit=20",
            headers: [("X-Forwarded-For", client)])
    }

    func testOneAddressSpendsItsShareOfTheDayAndNotAnotherUsers() throws {
        let pier = try startPlaces()
        var statuses: [Int] = []
        for index in 0..<14 { statuses.append(try places(pier, index, from: "198.51.100.7").status) }
        XCTAssertEqual(statuses, Array(repeating: 200, count: 10) + Array(repeating: 429, count: 4), "5 % of 200 credits")
        let refused = try places(pier, 99, from: "198.51.100.7")
        XCTAssertTrue(refused.bodyText.contains("this client's address (ipv4/32) has used its share of Geoapify's daily quota"), refused.bodyText)
        XCTAssertEqual(Double(refused.header("retry-after") ?? "") ?? 0, Double(min(3600, secondsToUTCMidnight())), accuracy: 2)
        // A rotating left-most X-Forwarded-For entry is whatever the client wrote: the proxy's appended entry decides.
        for index in 20..<24 {
            XCTAssertEqual(try places(pier, index, from: "203.0.113.\(index), 198.51.100.7").status, 429)
        }
        // Its /24 has 20: a neighbour gets the other 10, then the network is spent for every address in it.
        statuses = try (30..<41).map { try places(pier, $0, from: "198.51.100.8").status }
        XCTAssertEqual(statuses, Array(repeating: 200, count: 10) + [429])
        XCTAssertEqual(try places(pier, 50, from: "198.51.100.200").status, 429)
        // Another user is served; the first client still gets what memory holds.
        XCTAssertEqual(try places(pier, 60, from: "192.0.2.33").status, 200)
        XCTAssertEqual(try places(pier, 0, from: "198.51.100.7").status, 200, "cached answers cost nothing")
        XCTAssertEqual(upstream.requests(.geoapify).count, 21)

        let metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        XCTAssertTrue(metrics.contains(#"pier_upstream_refusals_total{upstream="geoapify",reason="daily_share",group="ipv4/32"} 10"#), metrics)
        XCTAssertTrue(metrics.contains(#"pier_upstream_refusals_total{upstream="geoapify",reason="daily_share",group="ipv4/24"} 1"#), metrics)
        let health = try RawClient.request(port: pier.port, "/health").bodyText
        XCTAssertTrue(health.contains(#""quota":{"per_day":200,"used_today":21,"left_today":179,"reserve":60}"#), health)
        XCTAssertFalse(health.contains("198.51.100"), "no addresses on /health")
        XCTAssertFalse(metrics.contains("198.51.100"), "no addresses in /metrics")
        XCTAssertEqual(pier.stop(), 0)

        // Counted in PostgreSQL: another replica (here: the next process) knows the address spent its share.
        let replica = try startPlaces()
        XCTAssertEqual(try places(replica, 70, from: "198.51.100.7").status, 429)
        XCTAssertEqual(try places(replica, 71, from: "192.0.2.34").status, 200)
        XCTAssertEqual(replica.stop(), 0)
        let connection = try database.connection()
        let rows = try connection.query("SELECT client_group, used FROM upstream_share WHERE upstream = 'geoapify' AND client_group LIKE '198.51.100.%'")
        XCTAssertEqual(
            Set(try rows.map { "\(try $0.decode(String.self, "client_group"))=\(try $0.decode(Int.self, "used"))" }),
            ["198.51.100.0/24=20", "198.51.100.7/32=10", "198.51.100.8/32=10"])
    }

    func testOneIPv6NetworkIsOneShareWhateverNumberOfSubscribersItUses() throws {
        let pier = try startPlaces()
        // 40 /64s of one /48 (each a "new client" if addresses counted alone): the /56s hold 10 each, the /48 20.
        var answered = 0
        for index in 0..<40 {
            let address = "2001:db8:0:\(String(index * 64, radix: 16))::1"
            if try places(pier, index, from: address).status == 200 { answered += 1 }
        }
        XCTAssertEqual(answered, 20)
        XCTAssertEqual(try places(pier, 90, from: "2001:db8:1::1").status, 200, "another /48")
        XCTAssertEqual(pier.stop(), 0)
    }

    func testTheReserveIsSpentOnlyOnWhatMoreThanOneClientAskedFor() throws {
        // 20 credits, 6 kept; shares lifted so that only the reserve decides.
        let pier = try startPlaces([
            "PIER_GEOAPIFY_CREDITS_PER_DAY": "20", "PIER_DAILY_SHARE_SUBSCRIBER": "0.7", "PIER_DAILY_SHARE_NETWORK": "0.7",
        ])
        let statuses = try (0..<15).map { try places(pier, $0, from: ["198.51.100.7", "203.0.113.7", "192.0.2.7"][$0 / 7]).status }
        XCTAssertEqual(statuses, Array(repeating: 200, count: 14) + [503], "the open 70 %")
        // A new point one user asks: refused for the reserve; when a second user asks for it, the reserve fetches it.
        let first = try places(pier, 40, from: "203.0.113.5")
        XCTAssertEqual(first.status, 503)
        XCTAssertTrue(first.bodyText.contains("kept for answers many users ask for"), first.bodyText)
        XCTAssertEqual(try places(pier, 40, from: "192.0.2.80").status, 200)
        XCTAssertEqual(try places(pier, 41, from: "192.0.2.80").status, 503, "its own new point is not popular")
        let health = try RawClient.request(port: pier.port, "/health").bodyText
        XCTAssertTrue(health.contains(#""quota":{"per_day":20,"used_today":15,"left_today":5,"reserve":6}"#), health)
        let metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        XCTAssertTrue(metrics.contains(#"pier_upstream_refusals_total{upstream="geoapify",reason="reserve"} 3"#), metrics)
        XCTAssertEqual(pier.stop(), 0)
    }

    func testFourColdRequestsAtOnceFromOneAppAreAllAnswered() throws {
        // Shipped per-second budgets and shares: Geoapify 2 at once per client, Wikipedia 3; the rest wait their turn.
        let pier = try startPier(["PIER_FETCH": "off", "PIER_GEOAPIFY_KEY": "test-key"])
        let paths = [
            "/v1/geocode?text=N%C3%BCrnberg&lang=de",
            "/v1/places?lat=49.45&lon=11.07&radius=5000&categories=tourism.attraction&limit=50",
            "/v1/places?lat=49.55&lon=11.07&radius=5000&categories=tourism.attraction&limit=50",
            "/v1/wikipedia/de/summary/Sch%C3%B6ner_Brunnen", "/v1/wikipedia/de/summary/Kaiserburg_N%C3%BCrnberg",
            "/v1/wikipedia/de/summary/Frauenkirche", "/v1/wikipedia/de/summary/Hauptmarkt",
        ]
        let port = pier.port
        let statuses = try concurrently(paths.map { path in { try RawClient.request(port: port, path, headers: [("X-Forwarded-For", "198.51.100.7")]).status } })
            .map(\.status)
        XCTAssertEqual(statuses.filter { $0 == 429 }, [], "\(statuses)")
        XCTAssertEqual(statuses.filter { $0 == 200 }.count, 5, "\(statuses) (Frauenkirche and Hauptmarkt are not in the fixtures: 404)")
        XCTAssertEqual(pier.stop(), 0)
    }

    func testTripPlannersTwoStopsAndAWidgetAtOnceAreAllAnswered() throws {
        // TfNSW's shipped share: 2 at once per client, 2 a second; the third and fourth wait their turn.
        let pier = try startPier(["PIER_FETCH": "off", "PIER_NSW_API_KEY": "test-key"])
        let port = pier.port
        // Noon tomorrow in Sydney: a time of day alone (`time=2359`) lies within ten minutes of Sydney's now for ten
        // minutes a day and is then answered from the stop's current answer — one upstream call fewer.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "Australia/Sydney")
        formatter.dateFormat = "yyyyMMdd"
        let later = "date=\(formatter.string(from: Date().addingTimeInterval(86_400)))&time=1200"
        let paths = [
            "/v1/nsw/departures?stop=G203519", "/v1/nsw/departures?stop=203294", "/v1/nsw/departures?stop=G203519&\(later)",
            "/v1/nsw/departures?stop=203294&\(later)",
        ]
        let answers = try concurrently(paths.map { path in { try RawClient.request(port: port, path, headers: [("X-Forwarded-For", "2001:db8::7")]).status } })
        XCTAssertEqual(answers.map(\.status), [200, 200, 200, 200])
        XCTAssertEqual(upstream.requests(.tfnsw).count, 4)
        XCTAssertLessThan(answers.map(\.seconds).max() ?? 99, 2.5, "waited about a second at most")
        XCTAssertEqual(pier.stop(), 0)
    }

    /// A carrier's NAT at a busy stop, an app and its widgets: many cold requests for one key at once from one address
    /// join one upstream call, so the cap on a client's requests at once (8) does not refuse them.
    func testRequestsJoiningOneCallAreNeverRefusedForRequestsAtOnce() throws {
        let pier = try startPier(["PIER_FETCH": "off", "PIER_OPENWEATHER_KEY": "test-key", "PIER_NSW_API_KEY": "test-key"])
        let port = pier.port
        upstream.set(.openweather, .delayed(1))
        upstream.set(.tfnsw, .delayed(1))
        for (path, count, double) in [
            ("/v1/lake-weather?lat=46.5065&lon=6.6268", 30, FixtureUpstream.Upstream.openweather),
            ("/v1/nsw/departures?stop=G203519", 40, .tfnsw),
        ] {
            let answers = try concurrently((0..<count).map { _ in
                { try RawClient.request(port: port, path, headers: [("X-Forwarded-For", "198.51.100.7")]).status }
            })
            XCTAssertEqual(answers.map(\.status), Array(repeating: 200, count: count), path)
            XCTAssertEqual(upstream.requests(double).count, 1, "\(path): one call answered them all")
        }
        let metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        let concurrency = metrics.split(separator: "\n").filter { $0.contains(#"reason="concurrency""#) && !$0.hasSuffix(" 0") }
        XCTAssertEqual(concurrency, [], "nobody refused for requests at once")
        XCTAssertEqual(pier.stop(), 0)
    }

    /// An app loading a station list: one cold key spends part of the client's share, then ten requests at once for a
    /// second cold key. One upstream call answers the ten, so none of them is refused for the share — the share is asked
    /// once per upstream call, by the request that makes it. For every on-demand upstream, with its shipped budget.
    func testRequestsJoiningOneCallSpendNoShare() throws {
        let pier = try startPier([
            "PIER_FETCH": "off", "PIER_OPENWEATHER_KEY": "test-key", "PIER_NSW_API_KEY": "test-key", "PIER_GEOAPIFY_KEY": "test-key",
        ])
        try checkJoiners(pier, [
            (.openweather, "/v1/lake-weather?lat=46.5065&lon=6.6268", "/v1/lake-weather?lat=47.2260&lon=8.8180", nil),
            (.tfnsw, "/v1/nsw/departures?stop=G203519", "/v1/nsw/departures?stop=203294", nil),
            (.transport, "/v1/stationboard?id=8503651&limit=30", "/v1/stationboard?id=8503652&limit=30", nil),
            (.geoapify, "/v1/places?lat=49.45&lon=11.07&radius=5000&categories=tourism.attraction",
             "/v1/places?lat=49.55&lon=11.07&radius=5000&categories=tourism.attraction", nil),
            (.geoapify, "/v1/geocode?text=N%C3%BCrnberg&lang=de", "/v1/geocode?text=F%C3%BCrth&lang=de", nil),
            (.wikipedia, "/v1/wikipedia/de/summary/Sch%C3%B6ner_Brunnen", "/v1/wikipedia/de/summary/Kaiserburg_N%C3%BCrnberg", nil),
        ])
        XCTAssertEqual(pier.stop(), 0)

        // FMI's forecast per cell and per place name, then MET Norway's stand-in while FMI fails.
        let weather = try startPier(["PIER_CONTACT": "ops@example.org"])
        _ = try waitForData(weather, "/v1/weather?lat=60.17&lon=24.94")
        try checkJoiners(weather, [
            (.fmi, "/v1/weather?lat=61.50&lon=23.76", "/v1/weather?lat=62.24&lon=25.75", "latlon"),
            (.fmi, "/v1/weather?place=helsinki", "/v1/weather?place=kumpula", "place"),
        ])
        upstream.set(.fmi, .status(500))
        try checkJoiners(weather, [(.metNorway, "/v1/weather?lat=65.01&lon=25.47", "/v1/weather?lat=66.50&lon=25.72", nil)])
        XCTAssertEqual(weather.stop(), 0)
    }

    /// For each case, from a client of its own: `first`, then ten requests at once for `second` while the upstream takes
    /// half a second — none refused, one upstream call (those with `asked` in their query when given).
    private func checkJoiners(_ pier: PierProcess, _ cases: [(FixtureUpstream.Upstream, first: String, second: String, asked: String?)]) throws {
        let port = pier.port
        for (index, (double, first, second, asked)) in cases.enumerated() {
            let client = "2001:db8:\(index + 1)::7"
            let calls = { self.upstream.requests(double).filter { request in asked.map { request.query[$0] != nil } ?? true }.count }
            XCTAssertEqual(try RawClient.request(port: port, first, headers: [("X-Forwarded-For", client)]).status / 100, 2, first)
            let before = calls()
            upstream.set(double, .delayed(0.5))
            let answers = try concurrently((0..<10).map { _ in
                { try RawClient.request(port: port, second, headers: [("X-Forwarded-For", client)]).status }
            })
            upstream.set(double, .normal)
            XCTAssertEqual(answers.map(\.status).filter { $0 == 429 || $0 == 503 }, [], "\(second): \(answers.map(\.status))")
            XCTAssertEqual(calls() - before, 1, "\(second): one call answered all ten")
        }
        let metrics = try RawClient.request(port: port, "/metrics").bodyText
        let refusals = metrics.split(separator: "\n").filter { $0.hasPrefix("pier_upstream_refusals_total") && !$0.hasSuffix(" 0") }
        XCTAssertEqual(refusals, [], "nobody refused")
    }

    func testAFloodOfColdKeysIsRefusedWhileAnotherUsersNewCityIsAnswered() throws {
        let pier = try startPier(["PIER_FETCH": "off", "PIER_GEOAPIFY_KEY": "test-key"])
        let port = pier.port
        let flood: [@Sendable () throws -> Int] = (0..<24).map { index in
            { try RawClient.request(port: port, "/v1/wikipedia/de/summary/Flood_\(index)_\(UUID().uuidString)", headers: [("X-Forwarded-For", "203.0.113.66")]).status }
        }
        let answers = try concurrently(flood + [{
            try RawClient.request(port: port, "/v1/geocode?text=N%C3%BCrnberg&lang=de", headers: [("X-Forwarded-For", "192.0.2.10")]).status
        }])
        let city = try XCTUnwrap(answers.last)
        XCTAssertEqual(city.status, 200)
        XCTAssertLessThan(city.seconds, 2, "another user's new city within a second or two")
        let statuses = answers.dropLast().map(\.status)
        XCTAssertGreaterThanOrEqual(statuses.filter { $0 == 429 }.count, 15, "\(statuses)")
        XCTAssertLessThanOrEqual(upstream.requests(.wikipedia).count, 9, "the client's share and its turn's wait, not the flood")
        let metrics = try RawClient.request(port: pier.port, "/metrics").bodyText
        XCTAssertTrue(metrics.contains(#"pier_upstream_refusals_total{upstream="wikipedia",reason="client_share",group="ipv4/32"}"#), metrics)
        // Refused before any PostgreSQL work: only the admitted requests looked for a stored answer.
        let reads = metrics.split(separator: "\n").first { $0.hasPrefix(#"pier_ondemand_stored_reads_total{kind="wikipedia_summary",upstream="wikipedia"} "#) }
        let readCount = try XCTUnwrap(Int(reads?.split(separator: " ").last ?? ""))
        XCTAssertGreaterThanOrEqual(readCount, statuses.filter { $0 != 429 }.count)
        XCTAssertLessThanOrEqual(readCount, 12, "of 24 (answered: \(statuses.filter { $0 != 429 }.count))")
        XCTAssertEqual(pier.stop(), 0)
    }

    func testHealthShowsStatesNotWhatUsersAsked() throws {
        let pier = try startPier(["PIER_FETCH": "off", "PIER_GEOAPIFY_KEY": "test-key", "LOG_LEVEL": "warning"])
        let asked = ["Secret%20Street%2012", "Hidden%20Lane"]
        for (mode, text) in zip([FixtureUpstream.Mode.status(500), .json(Array("{\"nope\":1}".utf8))], asked) {
            upstream.set(.geoapify, mode)
            upstream.set(.wikipedia, mode)
            XCTAssertEqual(try RawClient.request(port: pier.port, "/v1/geocode?text=\(text)").status, 503)
            XCTAssertEqual(try RawClient.request(port: pier.port, "/v1/wikipedia/de/summary/\(text)").status, 503)
            XCTAssertEqual(try RawClient.request(port: pier.port, "/v1/places?lat=47.12345&lon=8.54321&categories=tourism.attraction").status, 503)
            let health = try RawClient.request(port: pier.port, "/health").bodyText
            for secret in ["Secret", "Hidden", "47.123", "8.543", "test-key"] { XCTAssertFalse(health.contains(secret), "\(secret): \(health)") }
            XCTAssertTrue(health.contains("answered HTTP 500") || health.contains("could not be used"), health)
        }
        XCTAssertEqual(pier.stop(), 0)
        // Logs at info and above show states too; what was asked goes to the logs only at debug.
        let logs = pier.standardOutput()
        XCTAssertTrue(logs.contains("Geoapify failed") && logs.contains("Wikipedia failed"), logs)
        for secret in ["Secret", "Hidden", "47.123", "8.543", "test-key"] { XCTAssertFalse(logs.contains(secret), "\(secret) in the logs at warning") }
    }

    /// Runs `work` at once on as many threads; each one's answer and the seconds from the start until it had it.
    private func concurrently(_ work: [@Sendable () throws -> Int]) throws -> [(status: Int, seconds: Double)] {
        let results = UnsafeResults(count: work.count)
        let started = Date()
        let group = DispatchGroup()
        // A thread each (not a pool sized to the cores): the requests must be under way at once.
        for (index, item) in work.enumerated() {
            group.enter()
            Thread {
                results.set(index, Result { (try item(), Date().timeIntervalSince(started)) })
                group.leave()
            }.start()
        }
        group.wait()
        return try results.values.map { try $0.get() }
    }

    private func secondsToUTCMidnight() -> Int {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let midnight = calendar.startOfDay(for: Date()).addingTimeInterval(86_400)
        return Int(midnight.timeIntervalSinceNow.rounded(.up))
    }
}

/// Results written by concurrent workers, one slot each.
private final class UnsafeResults: @unchecked Sendable {
    private let lock = NSLock()
    private var slots: [Result<(Int, Double), any Error>]
    init(count: Int) { slots = Array(repeating: .success((0, 0)), count: count) }
    func set(_ index: Int, _ value: Result<(Int, Double), any Error>) { lock.withLock { slots[index] = value } }
    var values: [Result<(Int, Double), any Error>] { lock.withLock { slots } }
}
