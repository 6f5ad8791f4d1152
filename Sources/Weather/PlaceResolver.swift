import Basics
import Feature
import Foundation
import Identity
import Limits
import Logging
import Postgres
import Scheduling

/// Place names for `/v1/weather?place=Kumpula`, resolved by FMI itself: its WFS takes `place=` in any point query and
/// answers the place's official name and position with a forecast for it (which is kept for the place's grid cell,
/// so resolving costs no second call). A resolution — a place or "no such place" — is remembered a day, in memory
/// and in PostgreSQL (every replica). Resolving spends the FMI forecast budget with the asking client's share.
public final class PlaceResolver: Sendable {
    public struct Place: Sendable, Equatable {
        public var name: String
        public var latitude: Double
        public var longitude: Double

        /// `{"lat":…,"lon":…,"name":…}` (sorted keys).
        var json: String {
            "{\"lat\":\(latitude),\"lon\":\(longitude),\"name\":\(JSONString.quote(name))}"
        }
    }

    public enum Resolution: Sendable, Equatable {
        case found(Place)
        /// FMI knows no place by that name.
        case unknown
    }

    private struct Held: Sendable {
        var resolution: Resolution
        var until: Date
    }

    /// How long a resolution is remembered.
    static let lifetime: TimeInterval = 86_400

    private let client: FMIClient
    private let pool: PostgresPool
    private let forecasts: ForecastService
    private let held = LRUCache<String, Held>(budgetBytes: 1 << 20)
    private let gate: SpenderGate<String, Result<Resolution, any Error>>
    /// Who a request asking for a place's name counts as (asked only when FMI would be).
    let spenders: Spenders
    private let logger = Logger(label: "pier.weather")

    public init(client: FMIClient, pool: PostgresPool, forecasts: ForecastService, spenders: Spenders = Spenders()) {
        self.spenders = spenders
        self.client = client
        self.pool = pool
        self.forecasts = forecasts
        gate = UpstreamGate(limits: forecasts.limits)
    }

    /// The name as remembered: trimmed, inner whitespace one space, lower case.
    static func key(_ name: String) -> String {
        name.split(whereSeparator: \.isWhitespace).joined(separator: " ").lowercased()
    }

    /// The resolution memory holds for `name`, if it still holds.
    public func cached(_ name: String, now: Date = Date()) -> Resolution? {
        guard let entry = held[Self.key(name)], now < entry.until else { return nil }
        return entry.resolution
    }

    /// Memory, PostgreSQL, then FMI (one call per name at a time, on the FMI budget and `client`'s share).
    public func resolve(_ name: String, client: Spender?, now: Date = Date()) async throws -> Resolution {
        if let cached = cached(name, now: now) { return cached }
        let key = Self.key(name)
        if let stored = try? await stored(key, now: now) {
            held.set(Held(resolution: stored.resolution, until: stored.until), for: key, cost: key.utf8.count + 128)
            return stored.resolution
        }
        if let refusal = client?.refusal {
            throw ForecastService.Unavailable(retryAfter: 60, reason: "the place could not be looked up yet (\(refusal.refused()))", unauthorized: true)
        }
        let outcome = await gate.call(key, spender: client) { [self] in
            do { return .success(try await ask(name, key: key, now: now)) } catch { return .failure(error) }
        }
        switch outcome {
        case .answered(.success(let resolution)):
            return resolution
        case .answered(.failure(let error)):
            throw ForecastService.Unavailable(retryAfter: 60, reason: "the place could not be looked up at FMI: \(FMIError.state(of: error))")
        case .refused(let refused):
            let why = refused.refusal.isClients ? "this client has used its share of the FMI request budget" : "the FMI request budget is spent"
            throw ForecastService.Unavailable(
                retryAfter: RetryAfter.seconds(refused.retryAfter), reason: "the place could not be looked up yet (\(why))",
                clientShare: refused.refusal.isClients)
        }
    }

    /// One FMI call: the place's forecast, whose location is the place.
    private func ask(_ name: String, key: String, now: Date) async throws -> Resolution {
        let resolution: Resolution
        do {
            let series = try await client.forecast(place: name, now: now)
            guard let location = series.first?.location else { throw FetchError.suspect("FMI answered no location for a place") }
            let place = Place(name: location.name ?? name, latitude: location.latitude, longitude: location.longitude)
            resolution = .found(place)
            let forecast = Forecast(cell: GridCell(latitude: place.latitude, longitude: place.longitude), fetchedAt: Date(), series: series)
            if !forecast.series.isEmpty { await forecasts.adopt(forecast) }
        } catch let error as FMIError where error.isUnknownPlace {
            resolution = .unknown
        }
        held.set(Held(resolution: resolution, until: now.addingTimeInterval(Self.lifetime)), for: key, cost: key.utf8.count + 128)
        do { try await store(resolution, for: key, at: now) } catch {
            logger.warning("could not store a place's resolution", metadata: ["error": "\(error)"])
        }
        return resolution
    }

    private func stored(_ key: String, now: Date) async throws -> (resolution: Resolution, until: Date)? {
        let rows = try await pool.query(
            "SELECT name, latitude, longitude, resolved_at FROM weather_places WHERE query = $1 AND resolved_at > $2",
            [key, now.addingTimeInterval(-Self.lifetime)])
        guard let row = rows.first else { return nil }
        let until = try row.decode(Date.self, "resolved_at").addingTimeInterval(Self.lifetime)
        guard let name = try row.decode(String?.self, "name"), let latitude = try row.decode(Double?.self, "latitude"),
            let longitude = try row.decode(Double?.self, "longitude")
        else { return (.unknown, until) }
        return (.found(Place(name: name, latitude: latitude, longitude: longitude)), until)
    }

    private func store(_ resolution: Resolution, for key: String, at now: Date) async throws {
        let place: Place? = if case .found(let place) = resolution { place } else { nil }
        _ = try await pool.execute(
            """
            INSERT INTO weather_places (query, name, latitude, longitude, resolved_at) VALUES ($1, $2, $3, $4, $5)
            ON CONFLICT (query) DO UPDATE SET name = EXCLUDED.name, latitude = EXCLUDED.latitude, longitude = EXCLUDED.longitude,
                resolved_at = EXCLUDED.resolved_at
            """, [key, place?.name, place?.latitude, place?.longitude, now])
        _ = try await pool.execute("DELETE FROM weather_places WHERE resolved_at < $1", [now.addingTimeInterval(-2 * Self.lifetime)])
    }
}
