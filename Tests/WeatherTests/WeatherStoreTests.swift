import DatabaseTesting
@testable import FMIFormat
import Foundation
import Postgres
import Synchronization
import UpstreamTesting
@testable import Weather
import XCTest

/// Stations and nearest-station lookups against a real PostgreSQL/PostGIS and a local FMI.
final class WeatherStoreTests: WeatherDatabaseTestCase {
    func testObservationsAreStoredAndTheNearestStationAgreesWithPostGIS() async throws {
        let service = ObservationService(client: fmi(), store: WeatherStore(pool: pool))
        let summary = try await service.refresh()
        XCTAssertEqual(summary.itemCount, 8)
        let request = try XCTUnwrap(upstream.requests(.fmi).first)
        XCTAssertEqual(request.query["storedquery_id"], "fmi::observations::weather::timevaluepair")
        XCTAssertEqual(request.query["bbox"], "19.1,59.7,31.7,70.1")
        XCTAssertEqual(request.query["parameters"], "t2m,ws_10min,wd_10min,rh,p_sea,wawa,n_man")

        let index = service.stations
        XCTAssertFalse(index.stations.isEmpty)
        // Helsinki Kaisaniemi's newest temperature is NaN in the fixture: its newest non-missing one is used.
        let now = Date()
        let store = WeatherStore(pool: pool)
        let since = now.addingTimeInterval(-3 * 3600)
        var compared = 0
        for latitude in stride(from: 59.8, through: 70.0, by: 0.6) {
            for longitude in stride(from: 20.0, through: 31.5, by: 0.75) {
                let memory = try XCTUnwrap(index.nearest(latitude: latitude, longitude: longitude, now: now))
                let sql = try await store.nearestStation(latitude: latitude, longitude: longitude, since: since)
                XCTAssertEqual(memory.station.fmisid, sql?.fmisid, "\(latitude),\(longitude)")
                XCTAssertEqual(memory.kilometres, sql?.kilometres ?? -1, accuracy: 0.01)
                compared += 1
            }
        }
        XCTAssertGreaterThan(compared, 200)
        let rows = try await pool.query("SELECT count(*) AS n FROM weather_observations")
        XCTAssertGreaterThan(try rows[0].decode(Int.self, "n"), 30)

        // A second run upserts: no duplicate stations or rows.
        _ = try await service.refresh()
        let stations = try await pool.query("SELECT count(*) AS n FROM weather_stations")
        XCTAssertEqual(try stations[0].decode(Int.self, "n"), 8)
    }

    func testOldObservationsAreDeletedAndStaleStationsAreNotChosen() async throws {
        let store = WeatherStore(pool: pool)
        let old = Date().addingTimeInterval(-4 * 3600)
        try await store.store(
            stations: [FMILocation(fmisid: 1, name: "Old", latitude: 60.17, longitude: 24.94),
                       FMILocation(fmisid: 2, name: "Far", latitude: 61.5, longitude: 23.7)],
            rows: [ObservationRow(fmisid: 1, observedAt: old, values: [.t2m: 1]),
                   ObservationRow(fmisid: 1, observedAt: Date().addingTimeInterval(-50 * 3600), values: [.t2m: 2]),
                   ObservationRow(fmisid: 2, observedAt: Date(), values: [.t2m: 3])],
            at: Date())
        let rows = try await pool.query("SELECT count(*) AS n FROM weather_observations")
        XCTAssertEqual(try rows[0].decode(Int.self, "n"), 2, "the 50-hour-old row is gone")
        let latest = try await store.latestObservations(since: Date().addingTimeInterval(-3 * 3600))
        XCTAssertEqual(latest.map(\.fmisid), [2])
        let nearest = try await store.nearestStation(latitude: 60.17, longitude: 24.94, since: Date().addingTimeInterval(-3 * 3600))
        XCTAssertEqual(nearest?.fmisid, 2, "the station next door has no recent temperature")
        XCTAssertEqual(StationIndex(stations: latest).nearest(latitude: 60.17, longitude: 24.94, now: Date())?.station.fmisid, 2)
    }
}
