import FMIFormat
import Foundation
import Logging
import Scheduling

/// Keeps every Finnish station's latest observation: fetches all stations in one FMI call, upserts them into
/// PostgreSQL/PostGIS and keeps an in-memory ``StationIndex`` for the nearest-station lookup.
public final class ObservationService: Sendable {
    /// A station counts as current when its temperature is at most this old.
    public static let maximumObservationAge: TimeInterval = 3 * 3600

    private let client: FMIClient
    private let store: WeatherStore
    private let index = SharedValue(StationIndex(stations: []))

    public init(client: FMIClient, store: WeatherStore) {
        self.client = client
        self.store = store
    }

    public var stations: StationIndex { index.value }

    /// Fills the index from PostgreSQL (start-up, or after another process fetched).
    public func load(now: Date = Date()) async throws {
        let latest = try await store.latestObservations(since: now.addingTimeInterval(-Self.maximumObservationAge))
        index.update { $0 = StationIndex(stations: latest, generation: $0.generation + 1) }
    }

    /// One observations run: fetch, check, store, reload the index.
    public func refresh() async throws -> FetchSummary {
        let now = Date()
        let series = try await client.observations(now: now)
        let (stations, rows) = Self.tabulate(series)
        guard !stations.isEmpty else { throw FetchError.suspect("FMI's answer holds no station with an fmisid") }
        guard !rows.isEmpty else { throw FetchError.suspect("FMI's answer holds no observed value (all NaN)") }
        try Task.checkCancellation()
        try await store.store(stations: stations, rows: rows, at: now)
        try await load(now: now)
        return FetchSummary(itemCount: stations.count, scrapedAt: now)
    }

    /// Series → one station record per fmisid and one row per (station, time) with at least one value.
    static func tabulate(_ series: [FMISeries]) -> (stations: [FMILocation], rows: [ObservationRow]) {
        var stations: [Int: FMILocation] = [:]
        var rows: [Int: [Date: [ObservationParameter: Double]]] = [:]
        for entry in series {
            guard let fmisid = entry.location.fmisid, let parameter = ObservationParameter(rawValue: entry.parameter.lowercased()) else {
                continue
            }
            stations[fmisid] = stations[fmisid] ?? entry.location
            for point in entry.points {
                guard let value = point.value else { continue }
                rows[fmisid, default: [:]][point.time, default: [:]][parameter] = value
            }
        }
        let flat = rows.flatMap { fmisid, times in
            times.map { ObservationRow(fmisid: fmisid, observedAt: $0.key, values: $0.value) }
        }
        return (stations.keys.sorted().compactMap { stations[$0] }, flat.sorted { ($0.fmisid, $0.observedAt) < ($1.fmisid, $1.observedAt) })
    }
}
