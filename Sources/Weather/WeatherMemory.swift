import Feature
import Foundation
import HTTPServer
import Parsing
import Synchronization

/// Everything `/v1/weather` keeps in memory, in one least-recently-used cache bounded in bytes
/// (`PIER_WEATHER_CACHE_MB`): cells' forecasts (compact, ``HourlySeries``), cells' encoded `daily_forecast`,
/// and encoded answers per point. One budget for the three, so a scraper walking new points evicts the
/// least used of whatever it displaces instead of growing the process.
public final class WeatherMemory: Sendable {
    enum Key: Hashable, Sendable {
        case forecast(GridCell)
        case daily(GridCell)
        case body(String)
    }

    enum Entry: Sendable {
        case forecast(Forecast)
        case daily(DailyJSON)
        case body(Body)
    }

    /// A cell's encoded `daily_forecast` and `hourly_forecast`, for one forecast, local date and hour.
    struct DailyJSON: Sendable {
        var source: Forecast.Source
        var fetchedAt: Date
        var today: CalendarDate
        var hour: Int
        var json: [UInt8]
        var hourly: [UInt8]
    }

    /// What an answer for a point was built from; it is reused only while all of it is unchanged.
    struct Stamp: Equatable, Sendable {
        var stations: Int
        var cell: GridCell
        var fetchedAt: Date
        var today: CalendarDate
        /// The whole hour (hours since 1970) `hourly_forecast` starts at.
        var hour: Int
        /// The warnings' generation and whether they were served stale (``WarningsService``).
        var warnings: Int
        var warningsStale: Bool
    }

    struct Body: Sendable {
        var stamp: Stamp
        var provenance: ForecastService.Provenance
        var until: Date
        var response: CachedResponse
    }

    /// Bookkeeping per entry beyond its payload: the list node, the dictionary slot and the key.
    static let entryOverhead = 128

    private let cache: LRUCache<Key, Entry>
    /// Cells whose forecast is (probably) in the cache, for the neighbour search. A hint: every hit is
    /// checked against the cache, and a cell evicted in a race is merely not found here.
    private let forecastCells = Mutex<Set<GridCell>>([])

    /// `PIER_WEATHER_CACHE_MB`'s default.
    public static let defaultBudgetBytes = 64 << 20

    public init(budgetBytes: Int = WeatherMemory.defaultBudgetBytes) {
        cache = LRUCache(budgetBytes: budgetBytes)
    }

    public var budgetBytes: Int { cache.budgetBytes }
    /// Bytes held now (estimated per entry: payload plus bookkeeping).
    public var bytes: Int { cache.bytes }
    public var count: Int { cache.count }
    public var evictions: Int { cache.evictions }
    public var forecastCount: Int { forecastCells.withLock { $0.count } }

    // MARK: Forecasts

    /// The cell's forecast of any age, marked as used.
    public func forecast(_ cell: GridCell) -> Forecast? {
        guard case .forecast(let forecast)? = cache[.forecast(cell)] else { return nil }
        return forecast
    }

    /// Keeps `forecast` unless a newer one for the same cell is held.
    public func remember(_ forecast: Forecast) {
        if case .forecast(let held)? = cache.peek(.forecast(forecast.cell)), held.fetchedAt > forecast.fetchedAt { return }
        forecastCells.withLock { _ = $0.insert(forecast.cell) }
        put(.forecast(forecast), for: .forecast(forecast.cell), cost: forecast.byteCount)
    }


    /// A forecast near a point, from another cell than `own`.
    public struct Nearby: Sendable {
        public var forecast: Forecast
        public var kilometres: Double
    }

    /// The nearest held forecast within `kilometres` fetched at or after `freshSince`, and the nearest of any age.
    public func nearest(latitude: Double, longitude: Double, within kilometres: Double, freshSince: Date, excluding own: GridCell)
        -> (fresh: Nearby?, any: Nearby?)
    {
        // A box of cell indices around the point, wide enough at the box's poleward edge.
        let latitudeSpan = Int((kilometres / (GridCell.latitudeStep * 111.19)).rounded(.up)) + 1
        let poleward = min(89.0, abs(latitude) + kilometres / 111.19)
        let longitudeSpan = Int((kilometres / (GridCell.longitudeStep * 111.19 * cos(poleward * .pi / 180))).rounded(.up)) + 1
        let centre = GridCell(latitude: latitude, longitude: longitude)
        let candidates = forecastCells.withLock { cells in
            cells.filter { cell in
                cell != own && abs(cell.latitudeIndex - centre.latitudeIndex) <= latitudeSpan
                    && abs(cell.longitudeIndex - centre.longitudeIndex) <= longitudeSpan
            }
        }
        var found: (fresh: Nearby?, any: Nearby?) = (nil, nil)
        cache.peek(candidates.map { Key.forecast($0) }) { _, entry in
            guard case .forecast(let forecast) = entry else { return }
            let distance = GreatCircle.kilometres(latitude, longitude, forecast.cell.latitude, forecast.cell.longitude)
            guard distance <= kilometres else { return }
            let nearby = Nearby(forecast: forecast, kilometres: distance)
            if forecast.fetchedAt >= freshSince, distance < found.fresh?.kilometres ?? .infinity { found.fresh = nearby }
            if distance < found.any?.kilometres ?? .infinity { found.any = nearby }
        }
        return found
    }

    // MARK: Encoded parts

    /// The cell's `daily_forecast` (ten days from `today`) and `hourly_forecast` (48 hours from `now`'s whole hour)
    /// JSON, encoded once per forecast, date and hour.
    func forecastJSON(for forecast: Forecast, today: CalendarDate, now: Date, timeZone: TimeZone) throws -> (daily: [UInt8], hourly: [UInt8]) {
        let hour = Self.hour(now)
        if case .daily(let entry)? = cache[.daily(forecast.cell)], entry.source == forecast.source, entry.fetchedAt == forecast.fetchedAt, entry.today == today, entry.hour == hour {
            return (entry.json, entry.hourly)
        }
        let hours = forecast.hours
        let json = try JSONBody.encode(Array(DailyForecast.days(from: hours, timeZone: timeZone, today: today).prefix(DailyForecast.count)))
        let hourly = try JSONBody.encode(HourlyForecast.hours(from: hours, now: now))
        put(
            .daily(DailyJSON(source: forecast.source, fetchedAt: forecast.fetchedAt, today: today, hour: hour, json: json, hourly: hourly)), for: .daily(forecast.cell),
            cost: json.capacity + hourly.capacity + 48)
        return (json, hourly)
    }

    /// Hours since 1970 of `date`'s whole hour.
    static func hour(_ date: Date) -> Int {
        Int(FMITime.wholeHour(date).timeIntervalSince1970 / 3600)
    }

    func body(_ key: String) -> Body? {
        guard case .body(let body)? = cache[.body(key)] else { return nil }
        return body
    }

    func store(_ body: Body, for key: String) {
        let response = body.response.response
        let headerBytes = response.headers.fields.reduce(32) { $0 + Self.stringBytes($1.name) + Self.stringBytes($1.value) }
        let cost = response.body.capacity + 32 + headerBytes + Self.stringBytes(key) + (body.response.entityTag.map(Self.stringBytes) ?? 0)
        put(.body(body), for: .body(key), cost: cost)
    }

    /// Stores an entry and forgets the neighbour hints of the forecasts it evicted.
    private func put(_ entry: Entry, for key: Key, cost: Int) {
        let evicted = cache.set(entry, for: key, cost: cost + Self.entryOverhead)
        let cells = evicted.compactMap { key -> GridCell? in if case .forecast(let cell) = key { cell } else { nil } }
        if !cells.isEmpty { forecastCells.withLock { $0.subtract(cells) } }
    }

    /// Heap bytes of a string: small ones (up to 15 UTF-8 bytes) live inside the string value itself.
    private static func stringBytes(_ text: String) -> Int {
        let count = text.utf8.count
        return count <= 15 ? 16 : count + 48
    }
}
