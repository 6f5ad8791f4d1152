import Basics
import Feature
import Foundation
import Limits
import Logging
import METNorway
import Metrics
import UpstreamHTTP

/// MET Norway's Locationforecast standing in for FMI: asked only for a cell FMI could not answer (it failed, or its
/// shared budget is spent) when nothing of FMI's recent enough is held, and then kept within MET's terms.
///
/// Per cell: memory, then PostgreSQL (every replica's answers); MET itself only after the held copy's `Expires`,
/// conditionally (`If-Modified-Since`), with a request budget and each client's share of it (``UpstreamGate``: one
/// call per cell at a time). `429` pauses all calls for its `Retry-After` (a minute without one); `403` — MET's
/// answer to a terms violation or missing identification — pauses them an hour and is logged as an error. When MET
/// cannot be asked or fails, the last copy is served stale.
public final class METNorwayFallback: Sendable {
    public struct Settings: Sendable {
        public var url = METNorwayClient.defaultURL
        /// MET allows 20 requests a second for an application as a whole; a fallback needs far less.
        public var budget = BudgetSettings(ratePerMinute: 30, burst: 10, clientShare: 0.25)
        public var maximumRows = 10_000

        public init() {}
    }

    public struct Found: Sendable {
        public var forecast: Forecast
        /// Past MET's `Expires`: MET could not be asked again.
        public var stale: Bool
    }

    static let pauseAfterRefusal: Double = 3600
    static let pauseAfterThrottling: Double = 60

    private let client: METNorwayClient
    private let store: METNorwayStore
    private let memory: WeatherMemory
    private let gate: SpenderGate<GridCell, Result<METNorwayHeld, any Error>>
    private let loading = SingleFlight<GridCell, METNorwayHeld?>()
    private let logger = Logger(label: "pier.metno")
    private let requests: Counter?
    private let failures: Counter?

    public init(
        client: METNorwayClient, store: METNorwayStore, memory: WeatherMemory, budget: BudgetSettings,
        clock: @escaping @Sendable () -> Double = { Double(MonotonicClock.now()) / 1e9 }, metrics: MetricsRegistry? = nil
    ) {
        self.client = client
        self.store = store
        self.memory = memory
        gate = UpstreamGate(limits: UpstreamLimits(budget: budget, waiting: .never, clock: clock))
        requests = metrics?.counter("pier_metno_requests_total", help: "Forecasts asked from MET Norway (FMI could not answer for the cell).")
        failures = metrics?.counter("pier_metno_failures_total", help: "MET Norway requests that failed, were throttled or refused.")
        if let metrics {
            let budget = gate.budget
            metrics.gauge("pier_metno_budget_tokens", help: "MET Norway requests that could be made at once now.") { budget.snapshot().tokens }
        }
    }

    /// `"metno":{"budget":…,"paused_s":…}` for `/health` (the weather source's members).
    public func healthJSON() -> String {
        "\"metno\":{\"budget\":\(gate.budget.snapshot().json),\"paused_s\":\(Int(gate.limits.pausedFor.rounded(.up)))}"
    }

    /// MET Norway's forecast for the cell: the held one while MET says it holds, else MET's newer one, else the held
    /// one stale; `nil` when none is held and MET cannot be asked or fails.
    public func forecast(for cell: GridCell, client: Spender?, now: Date = Date()) async -> Found? {
        let held = await held(cell)
        if let held, now < held.expires { return Found(forecast: held.forecast, stale: false) }
        // A client that may not spend is served what is held (ForecastService has counted its refusal).
        if client?.refusal != nil { return held.map { Found(forecast: $0.forecast, stale: true) } }
        let outcome = await gate.call(cell, spender: client) { [self] in
            do { return .success(try await ask(cell, held: held, now: now)) } catch { return .failure(error) }
        }
        switch outcome {
        case .answered(.success(let fresh)):
            return Found(forecast: fresh.forecast, stale: false)
        case .answered(.failure(let error)):
            failures?.increment()
            switch error {
            case METNorwayError.throttled(let retryAfter):
                gate.limits.pause(seconds: Double(retryAfter ?? Int(Self.pauseAfterThrottling)))
            case METNorwayError.refused:
                gate.limits.pause(seconds: Self.pauseAfterRefusal)
                logger.error("MET Norway refused Pier's requests (403); not asking for an hour. Check PIER_CONTACT and MET's terms of service")
            default:
                // The state only: an upstream error's URL would name the point.
                logger.warning("MET Norway failed", metadata: ["error": "\((error as? UpstreamError)?.state ?? "\(error)")"])
            }
        case .refused:
            break
        }
        return held.map { Found(forecast: $0.forecast, stale: true) }
    }

    /// Memory, else PostgreSQL (one read per cell at a time; an error counts as nothing held).
    private func held(_ cell: GridCell) async -> METNorwayHeld? {
        if let held = memory.metNorway(cell) { return held }
        let stored = await loading.value(for: cell) { [self] () -> METNorwayHeld? in
            do { return try await store.held(cell) } catch {
                logger.warning("could not read a stored MET Norway forecast", metadata: ["error": "\(error)"])
                return nil
            }
        }
        if let stored { memory.remember(stored) }
        return stored
    }

    /// One request to MET for the cell's centre (the caller holds a token); stored and remembered.
    private func ask(_ cell: GridCell, held: METNorwayHeld?, now: Date) async throws -> METNorwayHeld {
        requests?.increment()
        let fresh: METNorwayHeld
        switch try await client.forecast(latitude: cell.latitude, longitude: cell.longitude, lastModified: held?.lastModified, now: now) {
        case let .forecast(forecast, expires, lastModified):
            let hours = Forecast(cell: cell, fetchedAt: now, metNorway: forecast)
            guard !hours.series.isEmpty else { throw METNorwayError.empty }
            fresh = METNorwayHeld(forecast: hours, expires: expires, lastModified: lastModified)
        case let .notModified(expires):
            guard var kept = held else { throw METNorwayError.unreadable("304 without a copy held") }
            kept.expires = expires
            fresh = kept
        }
        do { try await store.store(fresh, now: now) } catch {
            logger.warning("could not store a MET Norway forecast; serving it anyway", metadata: ["error": "\(error)"])
        }
        memory.remember(fresh)
        return fresh
    }
}
