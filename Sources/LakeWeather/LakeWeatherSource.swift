import Feature
import Foundation
import Geography
import LakeWeatherFormat
import Logging
import Metrics
import OnDemand
import SharedAnswers

/// OpenWeather's forecasts per grid cell, as the ``OnDemand`` engine asks for them: the cell is the key, a
/// forecast is fresh for ``Settings/ttl`` (never below ten minutes: OpenWeather's model updates no more often),
/// and each answer is rendered with Pier's daily summary.
public struct LakeWeatherSource: OnDemandSource {
    public struct Settings: Sendable {
        /// `PIER_OPENWEATHER_TTL_S`.
        public var ttl: Duration = .seconds(1800)
        /// `PIER_OPENWEATHER_CELL_DEG`.
        public var cellDegrees = 0.05

        /// OpenWeather updates its model at most every ten minutes.
        public static var minimumTTL: Duration { .seconds(600) }

        public init() {}

        public func cell(for point: Coordinate) -> ForecastCell {
            ForecastCell(point, size: cellDegrees)
        }
    }

    public let settings: Settings
    private let client: OpenWeatherClient
    private let answers: SharedAnswerKind
    private let droppedSlots: Counter?
    private let logger = Logger(label: "pier.lake-weather")

    /// A forecast is kept this long past its freshness: two days old it still covers three of its five days when
    /// OpenWeather fails; an older one is not worth keeping.
    public static let retention = Duration.seconds(2 * 86_400)

    /// - Parameter store: `upstream_answers`, where the forecasts are kept under the kind `lake-weather`.
    public init(client: OpenWeatherClient, store: SharedAnswerStore, settings: Settings = Settings(), metrics: MetricsRegistry? = nil) {
        var settings = settings
        if settings.ttl < Settings.minimumTTL { settings.ttl = Settings.minimumTTL }
        self.settings = settings
        self.client = client
        answers = SharedAnswerKind(kind: LakeWeatherFeature.source, store: store, retention: Self.retention)
        droppedSlots = metrics?.counter(
            "pier_openweather_slots_dropped_total", help: "Forecast slots left out because the app could not decode them (no wind.deg, …).")
    }

    public func cell(for point: Coordinate) -> ForecastCell {
        settings.cell(for: point)
    }

    public func stored(_ cell: ForecastCell) async throws -> OnDemandStored<ForecastDocument>? {
        guard let stored = try await answers.answer(cell.description), let document = try? ForecastDocument(parsing: stored.body) else { return nil }
        return OnDemandStored(document, fetchedAt: stored.fetchedAt)
    }

    public func store(_ document: ForecastDocument, for cell: ForecastCell, fetchedAt: Date) async throws {
        try await answers.store(.fetched(body: document.body, ttl: settings.ttl, now: fetchedAt), key: cell.description)
    }

    public func lastFetch() async throws -> Date? { try await answers.lastFetch() }

    public func fetch(_ cell: ForecastCell) async throws -> UpstreamReply<ForecastDocument> {
        let reply = try await client.forecast(for: cell)
        if case .answer(let document) = reply, !document.dropped.isEmpty {
            droppedSlots?.increment(by: UInt64(document.dropped.count))
            // The cell (where a user asked) only at debug: logs at info show states.
            logger.info("forecast slots the app cannot decode were left out", metadata: ["dropped": "\(document.dropped.count)", "why": "\(document.dropped[0])"])
            logger.debug("forecast slots left out", metadata: ["cell": "\(cell)"])
        }
        return reply
    }

    public func lifetime(of document: ForecastDocument, for cell: ForecastCell, now: Date) -> TimeInterval { settings.ttl.seconds }

    public func cost(of document: ForecastDocument) -> Int { document.body.count + 256 }

    public func render(_ document: ForecastDocument, for cell: ForecastCell, now: Date) -> OnDemandRendering {
        .document(document.rendered(daily: DailySummary.json(DailySummary.days(document.slots, utcOffset: document.utcOffset))))
    }

    public var nothingToServe: String { "no lake weather available for this point" }
}
