import Basics
import Foundation
import Geography
import HTTPServer
import Parsing
import UpstreamTesting
import XCTest
@testable import Alplakes
@testable import AlplakesFormat
@testable import CAPFormat
@testable import CruiseImportFormat
@testable import LakeWeatherFormat
@testable import NSWDeparturesFormat
@testable import NextWave
@testable import OnDemand
@testable import PostgRESTFormat
@testable import Realtime
@testable import StationboardFormat
@testable import Sun
@testable import SupabaseAuth
@testable import WarningPush
@testable import WarningPushFormat
@testable import Warnings
@testable import Weather
@testable import WarningsFormat

/// Every writer of the bodies the apps (and APNs, Gemini, the Supabase SDKs) read, for fixed values with what JSON must
/// escape, `null`s, whole and fractional numbers: the bytes are the recorded ones (`Tests/Golden/Writers/`, see
/// ``GoldenText``). Recorded from the hand-written writers before they moved to one writer (``JSONWriter``), so this
/// proves the move changed no byte.
final class WriterGoldenTests: XCTestCase {
    /// What JSON escapes (a quote, a backslash, a newline, a tab, control characters) beside what it does not (`/`,
    /// letters beyond ASCII, an emoji).
    static let awkward = "Zürich \"Bellevue\" \\ a/b\n\t\u{1}\u{1f}é 😀"
    static let day = Date(timeIntervalSince1970: 1_782_918_000)  // 2026-07-01T15:00:00Z

    func testTheWritersWriteTheRecordedBytes() throws {
        let (recorded, now) = try GoldenText.compare("writers", Self.cases())
        XCTAssertEqual(now, recorded)
    }

    static func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }

    /// `text` as a JSON string, for the inputs (Foundation's encoder: no writer of ours writes the input it checks).
    static func quoted(_ text: String) throws -> String { String(decoding: try JSONEncoder().encode(text), as: UTF8.self) }

    static func cases() throws -> [(String, String)] {
        var cases: [(String, String)] = []
        func add(_ name: String, _ text: String) { cases.append((name, text)) }
        let awkward = Self.awkward

        add("error", text(HTTPResponse.errorBody(awkward)))
        add("postgrest-error", PostgRESTError(status: 400, code: "PGRST100", message: awkward, details: nil, hint: "h\u{7}").json)
        add("postgrest-error-details", PostgRESTError(status: 409, code: "23505", message: "m", details: awkward).json)
        let user = AuthUser(id: "6f1c2d3e-0000-4000-8000-0000000000aa", createdAt: day, updatedAt: day.addingTimeInterval(0.25), lastSignInAt: day)
        add("auth-user", user.json)
        add("auth-session", AuthStore.Session(
            user: user, sessionID: "s", accessToken: "eyJ.a-b_c.d", refreshToken: "r3fr3sh", expiresIn: 3600, expiresAt: 1_782_921_600).json)
        var row: [UInt8] = Array("[".utf8)
        Leaderboard.row(into: &row, rank: 3, name: awkward, total: 42, isMe: true)
        add("leaderboard-row", text(row))
        add("badge-push-one", CommunityArchive.payload(Array(Badge.catalogue.prefix(1))))
        add("badge-push-many", CommunityArchive.payload(Array(Badge.catalogue.prefix(4))))
        add("supabase-claims", SupabaseClaims.accessToken(user: "u\"1", session: "s", issuedAt: 1_782_918_000, lifetime: 3600, issuer: awkward).json)
        add("supabase-claims-anon", SupabaseClaims(role: "anon", subject: nil, issuedAt: nil, expires: 1, issuer: nil, sessionID: nil, isAnonymous: false).json)
        add("supabase-jwt", SupabaseJWT(secret: "secret").sign(SupabaseClaims(role: "anon", subject: nil, issuedAt: 1, expires: 2, issuer: "x", sessionID: nil, isAnonymous: false)))

        add("gemini-request", GeminiRequest.body(for: awkward))
        let cruise = try ExtractedCruise(modelJSON: """
            {"title": \(try quoted(awkward)), "shippingLine": null, "ship": "Mein Schiff 1", "startDate": "2026-07-01",
             "endDate": "2026-07-08", "cabinType": null, "cabinNumber": "8123", "bookingNumber": null,
             "ports": [{"name": "Kiel", "country": "DE", "arrivalDate": null, "arrivalTime": null, "departureDate": "2026-07-01",
                        "departureTime": "18:00", "isSeaDay": false},
                       {"name": "At sea", "country": null, "arrivalDate": null, "arrivalTime": null, "departureDate": null,
                        "departureTime": null, "isSeaDay": true}]}
            """)
        var placed = cruise
        placed.ports[0].latitude = 54.0
        placed.ports[0].longitude = 10.1417
        add("extracted-cruise", placed.json)

        let missing = OnDemandResponse.rendered(
            .missing(awkward, members: [(name: "stop", value: "X\"9")]), maxAge: 60, stale: false, source: "s", fetchedAt: nil)
        add("on-demand-missing", text(missing.cached.response.body))

        add("phoenix-v1", PhoenixMessage.encode(joinRef: nil, ref: "1", topic: "realtime:\(awkward)", event: "phx_reply", payload: #"{"a":1}"#, version: .v1))
        add("phoenix-v2", PhoenixMessage.encode(joinRef: "j", ref: nil, topic: "realtime:x", event: awkward, payload: "{}", version: .v2))
        let change = TableChange(
            table: "wave_checkins", kind: .update, record: [.init("wave_id", awkward), .init("lake_id", nil)],
            oldRecord: [.init("wave_id", "w"), .init("lake_id", "l")], commitTimestamp: "2026-07-01T15:00:00.000Z", coalescing: "w")
        add("table-change", change.data(columns: [.init("wave_id", "text"), .init("lake_id", "text")]))

        add("lake-weather-daily", text(DailySummary.json([
            DailySummary(date: CalendarDate(year: 2026, month: 7, day: 1), minimum: 14, maximum: 21.3, morning: nil, afternoon: -0.0,
                         windMaximum: 3.7, gustMaximum: nil, weatherID: 800),
        ])))

        let info = CAPInfo(
            language: "en-GB", event: awkward, eventCode: "wind", severity: .severe, onset: day, expires: day.addingTimeInterval(3600),
            headline: "Gale \"warning\"", description: awkward, web: "https://example.org/a?b=c&d=e")
        add("warning-entry", StoredWarning.entry(identifier: "urn:oid:1", info: info, fallback: .en))
        add("warning-entry-bare", StoredWarning.entry(identifier: awkward, info: nil, fallback: .fi))
        add("warning-array", WarningStore.jsonArray(["a", awkward]))
        let entry = StoredWarning.entry(identifier: "urn:oid:1", info: info, fallback: .en)
        add("warning-push", WarningPushPayload.warning(entry: entry, root: "root\"1") ?? "nil")
        add("warning-push-long", WarningPushPayload.warning(
            entry: StoredWarning.entry(
                identifier: "u", info: CAPInfo(
                    language: "fi", event: "e", eventCode: "c", severity: .extreme, onset: day, expires: day, headline: String(repeating: "Ä", count: 900),
                    description: String(repeating: "\u{1}", count: 900), web: "w"), fallback: .fi),
            root: "r") ?? "nil")
        add("warning-all-clear", WarningPushPayload.allClear(headline: awkward, root: "r", language: .sv))
        let registration = DeviceRegistration(
            token: String(repeating: "ab", count: 32), environment: .development, language: .fi,
            places: [Coordinate(latitude: 60.0, longitude: 24.94)!, Coordinate(latitude: -33.8688, longitude: 151.2093)!],
            minimumSeverity: .moderate, allClear: true)
        add("device-view", text(DeviceRoutes.view(.init(id: "0f0e", registration: registration, createdAt: day, seenAt: day.addingTimeInterval(61)))))

        let departures = try JSONDecoder().decode([Departure].self, from: Data("""
            [{"id": "d\\"1", "locationName": \(try quoted(awkward)), "occupancy": "MANY_SEATS", "planned": 1782918000,
              "estimated": 1782918120, "number": "333", "disassembledName": "333", "description": "Bondi \\\\ City", "destination": "Bondi",
              "mode": "bus", "isCancelled": false, "isAccessible": true, "isHighFrequency": false},
             {"id": "d2", "locationName": "Central", "planned": 1782918600, "number": "T1", "disassembledName": "T1",
              "description": "North Shore", "destination": "Hornsby", "mode": "train", "isCancelled": true, "isAccessible": false,
              "isHighFrequency": true}]
            """.utf8))
        add("nsw-departures", text(DepartureList.json(departures, mode: nil, after: 1_782_917_000)))
        add("nsw-departures-bus", text(DepartureList.json(departures, mode: .bus, after: 1_782_917_000)))

        add("sun", text(SunResponse.body(SunTimes(date: CalendarDate(year: 2026, month: 6, day: 21), latitude: 47.37, longitude: 8.54))))
        add("sun-polar", text(SunResponse.body(SunTimes(date: CalendarDate(year: 2026, month: 12, day: 21), latitude: 78.22, longitude: 15.65))))

        let weather = WeatherResponse(
            station: StationObservation(
                fmisid: 100971, name: awkward, latitude: 60.17, longitude: 24.94, observedAt: day, temperature: 21.0, windSpeed: 3.25,
                windDirection: 180, humidity: 55, pressure: 1013.2, weatherCode: 2, cloudCover: 50),
            kilometres: 2.5)
        add("weather", text(try weather.body(dailyForecast: Array("[]".utf8), hourlyForecast: Array(#"[{"a":1}]"#.utf8), source: .metNorway,
                                             warnings: #"[{"id":"w"}]"#, location: PlaceResolver.Place(name: awkward, latitude: 60.0, longitude: 24.9384))))
        add("weather-fmi", text(try weather.body(dailyForecast: Array("[]".utf8), hourlyForecast: Array("[]".utf8))))

        let board = try StationboardDocument(parsing: Fixtures.bytes("transport", "stationboard-8503651-2026-07-04.json"))
        var named = 0
        let withShips = text(board.rendered { _ in
            named += 1
            return named % 3 == 0 ? nil : "MS \"Panta\" Rhei \(named)"
        })
        add("stationboard-ship-names", String(withShips.prefix(3000)))

        let published = [RealtimeTable(name: "wave_checkins", columns: [.init("wave_id", "text")])]
        let node = try JSONScanner.parse(Array(#"{"event":"*","schema":"public","table":"wave_checkins","filter":"wave_id=eq.a\"b"}"#.utf8))
        if case .success(let binding) = PostgresChangeBinding.read(node, published: published) { add("realtime-binding", binding.json) }

        let profile = try AlplakesProfile(parsing: Fixtures.bytes("alplakes", "profile-geneva.json"))
        let series = try AlplakesSeries(parsing: Fixtures.bytes("alplakes", "point-geneva.json"))
        let lake = AlplakesLake(key: "geneva", profile: profile, series: series, fetchedAt: day)
        let rendered = LakeTemperatures.render([lake], order: ["geneva", "nowhere"], now: series.steps.first?.time ?? day)
        add("lake-temperatures", text(rendered.body))
        return cases
    }
}
