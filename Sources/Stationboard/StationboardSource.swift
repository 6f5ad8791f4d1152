import Basics
import Feature
import Foundation
import OnDemand
import Parsing
import SharedAnswers
import Ships
import StationboardFormat

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
    private let answers: SharedAnswerKind
    private let courses: @Sendable () -> CourseIndex
    private let timeZone = TimeZone(identifier: "Europe/Zurich") ?? .current
    /// The limits each board was last answered with (a few per board, bounded), for ``coverings(of:)``.
    private let limits = LRUCache<String, [Int]>(budgetBytes: 1 << 20)

    /// An answer is kept this long past its freshness: an old board is still a timetable worth serving when the
    /// upstream fails, but not for ever.
    public static let retention = Duration.seconds(3 * 86_400)

    /// - Parameters:
    ///   - store: `upstream_answers`, where the boards are kept under the kind `stationboard`.
    ///   - courses: the ships' current course index (``ShipService/courses``).
    public init(client: TransportClient, store: SharedAnswerStore, courses: @escaping @Sendable () -> CourseIndex, settings: Settings = Settings()) {
        self.client = client
        answers = SharedAnswerKind(kind: StationboardFeature.source, store: store, retention: Self.retention)
        self.courses = courses
        self.settings = settings
    }

    public func today(_ now: Date = Date()) -> CalendarDate {
        CalendarDate(now, in: timeZone)
    }

    public func stored(_ query: StationboardQuery) async throws -> OnDemandStored<Board>? {
        guard let stored = try await answers.answer(query.key), let document = try? StationboardDocument(parsing: stored.body) else { return nil }
        answered(query)
        return OnDemandStored(.board(document), fetchedAt: stored.fetchedAt)
    }

    public func store(_ board: Board, for query: StationboardQuery, fetchedAt: Date) async throws {
        guard case .board(let document) = board else { return }
        answered(query)
        let lifetime = Duration.seconds(lifetime(of: board, for: query, now: fetchedAt))
        try await answers.store(.fetched(body: document.body, ttl: lifetime, now: fetchedAt), key: query.key)
    }

    public func lastFetch() async throws -> Date? { try await answers.lastFetch() }

    public func fetch(_ query: StationboardQuery) async throws -> UpstreamReply<Board> {
        try await client.stationboard(query)
    }

    /// Short for today's board, longer for other dates and unknown stations.
    public func lifetime(of board: Board, for query: StationboardQuery, now: Date) -> TimeInterval {
        guard case .board = board else { return settings.ttl.seconds }
        let today = today(now)
        return (query.serviceDate(today: today) == today ? settings.ttlToday : settings.ttl).seconds
    }

    /// The same board asked with a larger limit (the Next Wave app asks one pier's day with 420, 100, 50 and 30): its
    /// first journeys are what a smaller limit gets, so one upstream call serves all four. Smallest first.
    public func coverings(of query: StationboardQuery) -> [StationboardQuery] {
        guard let limit = query.limit, let known = limits.peek(query.board) else { return [] }
        return known.filter { $0 > limit }.sorted().map { query.with(limit: $0) }
    }

    /// A board cut to the request's limit (a board shorter than its own limit is whole, and so is the cut).
    public func cut(_ board: Board, to query: StationboardQuery) -> Board? {
        guard case .board(let document) = board, let limit = query.limit, let cut = document.prefix(limit) else { return nil }
        return .board(cut)
    }

    /// Notes that `query`'s board is held with its limit (at most eight limits per board, the newest kept).
    private func answered(_ query: StationboardQuery) {
        guard let limit = query.limit else { return }
        let known = limits.peek(query.board) ?? []
        guard !known.contains(limit) else { return }
        let updated = Array((known + [limit]).suffix(8))
        let cost = 64 + query.board.utf8.count + 8 * updated.count
        limits.set(updated, for: query.board, cost: cost)
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
