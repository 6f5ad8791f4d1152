import Feature
import Fetching
import Foundation
import Ships

/// Stationboards from transport.opendata.ch as the ``OnDemand`` engine asks for them: one answer per distinct
/// request, fresh for ``Settings/ttlToday`` when it is today's board (delays change) and ``Settings/ttl``
/// otherwise. Ship names are added when an answer is rendered, from the ships' ``CourseIndex``, so new ship
/// data shows in the next answer without an upstream call (a rendering made under older ship data is made again).
public struct StationboardSource: OnDemandSource {
    public struct Settings: Sendable {
        /// How long today's board is fresh (real-time delays).
        public var ttlToday: Duration = .seconds(60)
        /// How long another date's board is fresh, and an unknown station remembered.
        public var ttl: Duration = .seconds(1800)

        public init() {}
    }

    /// What transport.opendata.ch said about a request.
    public enum Board: Sendable {
        case board(StationboardDocument)
        /// It knows no such station (`404`, or an answer whose `station` is null); remembered in memory only.
        case unknownStation
    }

    public let settings: Settings
    private let client: TransportClient
    private let store: StationboardStore
    private let courses: @Sendable () -> CourseIndex
    private let timeZone = TimeZone(identifier: "Europe/Zurich") ?? .current

    /// - Parameter courses: the ships' current course index (``ShipService/courses``).
    public init(client: TransportClient, store: StationboardStore, courses: @escaping @Sendable () -> CourseIndex, settings: Settings = Settings()) {
        self.client = client
        self.store = store
        self.courses = courses
        self.settings = settings
    }

    public func today(_ now: Date = Date()) -> CalendarDate {
        CalendarDate(now, in: timeZone)
    }

    public func stored(_ query: StationboardQuery) async throws -> OnDemandStored<Board>? {
        guard let stored = try await store.answer(for: query), let document = try? StationboardDocument(parsing: stored.body) else { return nil }
        return OnDemandStored(.board(document), fetchedAt: stored.fetchedAt)
    }

    public func store(_ board: Board, for query: StationboardQuery, fetchedAt: Date) async throws {
        guard case .board(let document) = board else { return }
        try await store.store(document.body, for: query, serviceDate: query.serviceDate(today: today(fetchedAt)), fetchedAt: fetchedAt)
    }

    public func lastFetch() async throws -> Date? { try await store.lastFetch() }

    public func fetch(_ query: StationboardQuery) async throws -> UpstreamReply<Board> {
        try await client.stationboard(query)
    }

    /// Short for today's board, longer for other dates and unknown stations.
    public func lifetime(of board: Board, for query: StationboardQuery, now: Date) -> TimeInterval {
        guard case .board = board else { return settings.ttl.seconds }
        let today = today(now)
        return (query.serviceDate(today: today) == today ? settings.ttlToday : settings.ttl).seconds
    }

    public func mayServeStale(_ board: Board, now: Date) -> Bool {
        if case .board = board { return true }
        return false
    }

    /// The upstream's bytes and a little per journey (the rendered body is charged to the engine's renderings).
    public func cost(of board: Board) -> Int {
        guard case .board(let document) = board else { return 256 }
        return document.body.count + document.journeys.count * 64 + 256
    }

    public var renderingVersion: Int { courses().generation }

    /// The upstream's bytes with the ship of each course put in.
    public func render(_ board: Board, for query: StationboardQuery, now: Date) -> OnDemandRendering {
        guard case .board(let document) = board else { return .missing("transport.opendata.ch knows no station with id \(query.station)") }
        let index = courses()
        return .document(document.rendered { journey in
            guard let course = journey.course, let date = journey.date,
                journey.operatorName.map({ $0.caseInsensitiveCompare("ZSG") == .orderedSame }) ?? true
            else { return nil }
            return index.ship(course: course, on: date)
        })
    }

    public var nothingToServe: String { "no stationboard available for this request" }
}
