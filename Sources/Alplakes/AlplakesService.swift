import AlplakesFormat
import Basics
import Foundation
import Logging
import Parsing
import Scheduling

/// Lake temperatures from Alplakes on a schedule: each configured lake's profile and surface series, one lake
/// at a time with a pause (a research institute's service), stored in PostgreSQL, held in memory. A lake whose
/// fetch fails keeps its last good data; the run then counts as failed (a wrong-shaped answer as suspect) so
/// that `/health` and the captures show it. Speaks no HTTP.
public final class AlplakesService: Sendable {
    public struct Settings: Sendable {
        /// `PIER_ALPLAKES_LAKES`.
        public var lakes = AlplakesLake.appLakes
        /// `PIER_ALPLAKES_PAUSE_S`: between two lakes.
        public var pause: Duration = .seconds(2)
        /// The surface series fetched around now: from `seriesBefore` ago to `seriesAfter` ahead — enough for
        /// an app's "now + 48 h" window until the next fetch and a little beyond.
        public var seriesBefore: Duration = .seconds(6 * 3600)
        public var seriesAfter: Duration = .seconds(54 * 3600)

        public init() {}
    }

    /// How a lake's last fetch went, for `/health`.
    public struct LakeStatus: Sendable, Equatable {
        public var lastSuccess: Date? = nil
        public var lastError: String? = nil
    }

    public let settings: Settings
    private let client: AlplakesClient
    private let store: AlplakesStore
    private let held = HeldData<[String: AlplakesLake]>([:])
    private let statuses = SharedValue<[String: LakeStatus]>([:])
    private let logger = Logger(label: "pier.alplakes")

    public init(client: AlplakesClient, store: AlplakesStore, settings: Settings = Settings()) {
        (self.client, self.store, self.settings) = (client, store, settings)
    }

    /// Fired after the lakes held changed.
    public var changes: ChangeSignal { held.changes }

    /// The lakes held, by key.
    public var lakes: [String: AlplakesLake] { held.value }

    public func load() async throws {
        let stored = try await store.lakes(settings.lakes)
        statuses.update { statuses in
            for lake in stored where statuses[lake.key]?.lastSuccess == nil { statuses[lake.key] = LakeStatus(lastSuccess: lake.fetchedAt, lastError: nil) }
        }
        held.change { held in for lake in stored { held[lake.key] = lake } }
    }

    /// Fetches every lake (at most two upstream calls each), storing and serving each as it arrives.
    public func refresh() async throws -> FetchSummary {
        var failures: [String] = []
        var suspect = false
        var fetched = 0
        for (index, key) in settings.lakes.enumerated() {
            if index > 0 { try await Task.sleep(for: settings.pause) }
            try Task.checkCancellation()
            let now = Date()
            do {
                let profile = try await client.profile(key, at: now)
                let series = try await client.surface(key, from: now - settings.seriesBefore.seconds, to: now + settings.seriesAfter.seconds)
                let lake = AlplakesLake(key: key, profile: profile, series: series, fetchedAt: now)
                try await store.store(lake)
                statuses.update { $0[key] = LakeStatus(lastSuccess: now, lastError: nil) }
                held.change { $0[key] = lake }
                fetched += 1
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                if error is AlplakesProblem { suspect = true }
                logger.warning("an Alplakes lake failed; its last good data is kept", metadata: ["lake": "\(key)", "error": "\(error)"])
                statuses.update { $0[key, default: LakeStatus()].lastError = "\(error)" }
                failures.append("\(key): \(error)")
            }
        }
        if !failures.isEmpty {
            // The lakes that did arrive are stored and served; the run still counts as failed (suspect for a
            // wrong-shaped answer) so that /health, the logs and the captures show the others.
            let summary = "\(failures.count) of \(settings.lakes.count) lakes failed (\(failures.prefix(3).joined(separator: "; ")))"
            throw FetchError.partial(summary, stored: fetched, suspect: suspect)
        }
        return FetchSummary(itemCount: fetched, scrapedAt: Date())
    }

    /// `lakes`: each lake's `last_success`, `age_s` and `last_error`, by key in the settings' order, for `/health`.
    public func health(now: Date = Date()) -> (any Encodable & Sendable) {
        let statuses = statuses.value
        return Health(lakes: OrderedObject(settings.lakes.map { key in
            let status = statuses[key] ?? LakeStatus()
            return (key, LakeHealth(
                lastSuccess: status.lastSuccess.map(Timestamp.iso8601), ageSeconds: status.lastSuccess.map { max(0, Int(now.timeIntervalSince($0))) },
                lastError: status.lastError))
        }))
    }

    struct Health: Encodable, Sendable {
        let lakes: OrderedObject<LakeHealth>
    }

    struct LakeHealth: Encodable, Sendable {
        let lastSuccess: String?
        let ageSeconds: Int?
        let lastError: String?

        enum CodingKeys: String, CodingKey {
            case lastSuccess = "last_success", ageSeconds = "age_s", lastError = "last_error"
        }
    }
}
