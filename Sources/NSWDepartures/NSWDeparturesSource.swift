import Feature
import Foundation
import HTTPServer
import Limits
import Logging
import Metrics
import NSWDeparturesFormat
import OnDemand
import Parsing
import Scheduling
import SharedAnswers

/// Sydney departures from TfNSW's `departure_mon` as the ``OnDemand`` engine asks for them: one call per stop
/// (every mode; the mode is filtered from Pier's copy), fresh for ``Settings/ttl`` at best — when many stops are
/// watched, longer, so the daily quota lasts the day (``QuotaSpreading``). Every answer leaves out the
/// departures that have left: a rendering holds until its next departure leaves, then is made again from the
/// same data; a stale answer is served only while a departure in it is still to come.
public struct NSWDeparturesSource: OnDemandSource {
    public struct Settings: Sendable {
        /// `PIER_NSW_TTL_S`: freshness at best (real-time data changes by the minute).
        public var ttl: Duration = .seconds(30)
        /// How long a stop TfNSW does not know is remembered.
        public var unknownStopTTL: Duration = .seconds(3600)
        /// Stops asked within this long count as watched when the quota is spread (at least twice the freshness).
        public var watchWindow: Duration = .seconds(900)

        public init() {}
    }

    /// What TfNSW said about a stop.
    public enum Board: Sendable {
        case departures([Departure])
        /// TfNSW knows no such stop.
        case unknownStop
    }

    public let settings: Settings
    private let client: TfNSWClient
    private let answers: SharedAnswerKind
    private let quota: DailyQuota?
    private let watched = WatchedStops()
    private let currentTTL: SharedValue<Double>
    private let droppedEvents: Counter?
    private let logger = Logger(label: "pier.nsw")

    /// An answer is kept this long past its freshness: by then every departure in it has left.
    public static let retention = Duration.seconds(86_400)

    /// - Parameters:
    ///   - store: `upstream_answers`, where the answers are kept under the kind `nsw` (Pier's reading of each as a
    ///     JSON array of every mode's departures; a stop TfNSW does not know as a remembered `404`).
    ///   - quota: the key's daily quota (its upstream's), spread over the watched stops.
    public init(client: TfNSWClient, store: SharedAnswerStore, quota: DailyQuota?, settings: Settings = Settings(), metrics: MetricsRegistry? = nil) {
        self.settings = settings
        self.client = client
        answers = SharedAnswerKind(kind: NSWDeparturesFeature.source, store: store, retention: Self.retention)
        self.quota = quota
        let currentTTL = SharedValue(settings.ttl.seconds)
        self.currentTTL = currentTTL
        droppedEvents = metrics?.counter(
            "pier_tfnsw_events_dropped_total", help: "departure_mon events left out because they could not be read (no planned time, …).")
        metrics?.gauge("pier_nsw_ttl_seconds", help: "How long a stop's departures stay fresh now (stretched so the daily quota lasts).") {
            currentTTL.value
        }
    }

    public func key(of query: DepartureQuery) -> DepartureQuery { query.everyMode }

    public func requests(of key: DepartureQuery) -> [DepartureQuery] {
        [key] + TransportMode.allCases.map { DepartureQuery(stop: key.stop, mode: $0, at: key.at) }
    }

    public func stored(_ key: DepartureQuery) async throws -> OnDemandStored<Board>? {
        guard let stored = try await answers.answer(key.key) else { return nil }
        guard stored.outcome == .found else { return OnDemandStored(.unknownStop, fetchedAt: stored.fetchedAt) }
        return OnDemandStored(.departures(try JSONDecoder().decode([Departure].self, from: Data(stored.body))), fetchedAt: stored.fetchedAt)
    }

    public func store(_ board: Board, for key: DepartureQuery, fetchedAt: Date) async throws {
        let body = try JSONBody.encode(board.departures ?? [])
        let lifetime = Duration.seconds(lifetime(of: board, for: key, now: fetchedAt))
        try await answers.store(.fetched(board.departures == nil ? .missing : .found, body: body, ttl: lifetime, now: fetchedAt), key: key.key)
    }

    public func lastFetch() async throws -> Date? { try await answers.lastFetch() }

    public func fetch(_ query: DepartureQuery) async throws -> UpstreamReply<Board> {
        try await client.departures(for: query).map { monitor in
            if !monitor.dropped.isEmpty {
                droppedEvents?.increment(by: UInt64(monitor.dropped.count))
                // The stop (what a user asked) only at debug: logs at info show states.
                logger.info(
                    "departure_mon events that could not be read were left out",
                    metadata: ["dropped": "\(monitor.dropped.count)", "why": "\(monitor.dropped[0])"])
                logger.debug("departure_mon events left out", metadata: ["stop": "\(query.stop)"])
            }
            switch monitor.content {
            case .departures(let list):
                watched.note(query.key, at: Date().timeIntervalSince1970)
                return .departures(list)
            case .unknownStop:
                watched.forget(query.key)
                return .unknownStop
            }
        }
    }

    public func lifetime(of board: Board, for key: DepartureQuery, now: Date) -> TimeInterval {
        board.departures == nil ? settings.unknownStopTTL.seconds : currentTTL.value
    }

    /// Stale while a departure in it is still to come (an answer whose departures have all left says nothing);
    /// an unknown stop stays unknown while TfNSW cannot be asked.
    public func mayServeStale(_ board: Board, now: Date) -> Bool {
        guard let departures = board.departures else { return true }
        let seconds = Int(now.timeIntervalSince1970.rounded(.down))
        return departures.contains { $0.departureTime > seconds }
    }

    /// Notes a stop TfNSW answered as watched, and spreads the quota over the watched stops (a stop TfNSW does not
    /// know is nobody's to refresh; one never answered — new, or refused — is not counted until it is).
    public func noteMiss(_ key: DepartureQuery, last: Board?, now: Date) {
        let seconds = now.timeIntervalSince1970
        switch last {
        case .unknownStop?:
            watched.forget(key.key)
            return
        case .departures?:
            watched.note(key.key, at: seconds)
        case nil:
            break
        }
        guard let quota else { return }
        let snapshot = quota.snapshot(now: now)
        let day = CalendarDate(now, in: DepartureQuery.sydney)
        let left = day.adding(days: 1).start(in: DepartureQuery.sydney).timeIntervalSince(now)
        let window = max(settings.watchWindow.seconds, 2 * currentTTL.value)
        let ttl = QuotaSpreading.ttl(
            base: settings.ttl.seconds, watched: watched.count(at: seconds, window: window), quotaLeft: snapshot.limit - (snapshot.used ?? 0),
            secondsLeftToday: left)
        currentTTL.update { $0 = ttl }
    }

    /// Memory charged for a board: about what its departures take.
    public func cost(of board: Board) -> Int {
        (board.departures?.count ?? 0) * 400 + 256
    }

    public func render(_ board: Board, for query: DepartureQuery, now: Date) -> OnDemandRendering {
        guard let departures = board.departures else { return .missing("TfNSW knows no stop with id \(query.stop)") }
        let seconds = Int(now.timeIntervalSince1970.rounded(.down))
        let next = DepartureList.nextDeparture(departures, mode: query.mode, after: seconds)
        return .document(DepartureList.json(departures, mode: query.mode, after: seconds), until: next.map { Date(timeIntervalSince1970: Double($0)) })
    }

    public var nothingToServe: String { "no departures available for this stop" }
    public var reportsAge: Bool { true }

    public func health() -> (any Encodable & Sendable)? { Lifetime(seconds: Int(currentTTL.value.rounded(.up))) }
    public func cacheHealth(keysHeld: Int) -> (any Encodable & Sendable)? { Stops(stops: keysHeld) }

    /// How long a stop's answer is held now (`ttl_s`: longer while TfNSW is slow to answer).
    struct Lifetime: Encodable, Sendable {
        let seconds: Int

        enum CodingKeys: String, CodingKey {
            case seconds = "ttl_s"
        }
    }

    /// The stops whose departures memory holds.
    struct Stops: Encodable, Sendable {
        let stops: Int
    }
}

extension NSWDeparturesSource.Board {
    /// `nil`: TfNSW knows no such stop.
    var departures: [Departure]? {
        if case .departures(let list) = self { return list }
        return nil
    }
}
