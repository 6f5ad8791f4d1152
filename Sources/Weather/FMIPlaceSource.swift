import Basics
import FMIFormat
import Feature
import Foundation
import HTTPServer
import OnDemand
import Postgres
import Scheduling
import SharedAnswers

/// FMI's answers for place names as the ``OnDemandCore`` asks for them: the normalised name is the key, a
/// resolution (a place, or none by that name) holds a day, kept in the shared answer store (kind `fmi-place`); the
/// forecast FMI answers with is handed to the forecasts (its cell's).
struct FMIPlaceSource: OnDemandValueSource {
    /// A name as asked (sent to FMI as it is) and as remembered (``PlaceResolver/key(_:)``: one entry for every spelling).
    struct Query: Hashable, Sendable, CustomStringConvertible {
        let key: String
        let name: String

        init(_ name: String) {
            key = PlaceResolver.key(name)
            self.name = name
        }

        /// By the key's bytes (``QueryText/hash(_:into:)``): it is in NFC.
        static func == (lhs: Self, rhs: Self) -> Bool { QueryText.same(lhs.key, rhs.key) }
        func hash(into hasher: inout Hasher) { QueryText.hash(key, into: &hasher) }
        var description: String { key }
    }

    let client: FMIClient
    let answers: SharedAnswerKind
    let forecasts: ForecastService

    /// The kind of the shared answer store the resolutions are kept under.
    static let kind = "fmi-place"

    /// A found place as stored: its body in `upstream_answers`.
    struct StoredPlace: Codable {
        let name: String
        let latitude: Double
        let longitude: Double
    }

    init(client: FMIClient, pool: PostgresPool, forecasts: ForecastService) {
        self.client = client
        // Kept two days (a day fresh): names are few, and FMI's budget bounds how many a day resolves.
        answers = SharedAnswerKind(kind: Self.kind, store: SharedAnswerStore(pool: pool), retention: .seconds(PlaceResolver.lifetime))
        self.forecasts = forecasts
    }

    /// A resolution older than a day is not served, not even stale: a place's name is asked again.
    func stored(_ query: Query) async throws -> OnDemandStored<PlaceResolver.Resolution>? {
        guard let stored = try await answers.answer(query.key), stored.fetchedAt > Date().addingTimeInterval(-PlaceResolver.lifetime) else {
            return nil
        }
        guard stored.outcome == .found else { return OnDemandStored(.unknown, fetchedAt: stored.fetchedAt) }
        let place = try JSONDecoder().decode(StoredPlace.self, from: Data(stored.body))
        return OnDemandStored(.found(PlaceResolver.Place(name: place.name, latitude: place.latitude, longitude: place.longitude)), fetchedAt: stored.fetchedAt)
    }

    func store(_ resolution: PlaceResolver.Resolution, for query: Query, fetchedAt: Date) async throws {
        let expires = fetchedAt.addingTimeInterval(PlaceResolver.lifetime)
        let answer: StoredAnswer
        switch resolution {
        case .found(let place):
            let body = try OrderedJSONEncoder.encode(StoredPlace(name: place.name, latitude: place.latitude, longitude: place.longitude))
            answer = StoredAnswer(.found, body: body, fetchedAt: fetchedAt, expiresAt: expires)
        case .unknown:
            answer = StoredAnswer(.missing, body: [], fetchedAt: fetchedAt, expiresAt: expires)
        }
        try await answers.store(answer, key: query.key)
    }

    func lastFetch() async throws -> Date? { nil }

    /// One FMI call: the place's forecast, whose location is the place.
    func fetch(_ query: Query) async throws -> UpstreamReply<PlaceResolver.Resolution> {
        do {
            let series = try await client.forecast(place: query.name, now: Date())
            guard let location = series.first?.location else { throw FetchError.suspect("FMI answered no location for a place") }
            let place = PlaceResolver.Place(name: location.name ?? query.name, latitude: location.latitude, longitude: location.longitude)
            let forecast = Forecast(cell: GridCell(latitude: place.latitude, longitude: place.longitude), fetchedAt: Date(), series: series)
            if !forecast.series.isEmpty { await forecasts.adopt(forecast) }
            return .answer(.found(place))
        } catch let error as FMIError where error.isUnknownPlace {
            return .answer(.unknown)
        }
    }

    func lifetime(of resolution: PlaceResolver.Resolution, for query: Query, now: Date) -> TimeInterval { PlaceResolver.lifetime }

    /// A resolution past its day is asked again, never served stale.
    func mayServeStale(_ resolution: PlaceResolver.Resolution, now: Date) -> Bool { false }

    func cost(of resolution: PlaceResolver.Resolution) -> Int { 128 }

    func state(of error: any Error) -> String { FMIError.state(of: error) }
}
