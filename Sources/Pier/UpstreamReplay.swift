import ArgumentParser
import Fetching
import Foundation
import Logging
import Replay

/// Recorded upstream answers standing in for ZSG, MeteoNews, FMI and transport.opendata.ch (`serve --demo`, `serve|fetch --replay`).
enum UpstreamReplay {
    /// Starts a replay of the recordings in `folder` (if any) and points the configuration's upstreams at it.
    static func start(_ folder: String?, moveToNow: Bool, into configuration: inout Configuration, logger: Logger) throws -> ReplayUpstream? {
        guard let folder else { return nil }
        let recorded: [UpstreamCapture.Recorded]
        do {
            recorded = try ReplayUpstream.read(URL(fileURLWithPath: folder))
        } catch {
            throw ValidationError("no recorded upstream answers in \(folder): \(error)")
        }
        let upstream = try ReplayUpstream(recorded: recorded, moveToNow: moveToNow)
        // The bundled demo recordings were made against the real upstreams: the demo replaces whatever URLs
        // are configured with theirs. A capture (`--replay`) was recorded against the configured URLs.
        let recordedAt = moveToNow ? Configuration.FetchSettings() : configuration.fetch
        configuration.fetch.zsgURL = upstream.url(for: recordedAt.zsgURL)
        configuration.fetch.meteoNewsURL = upstream.url(for: recordedAt.meteoNewsURL)
        configuration.fetch.fmiURL = upstream.url(for: recordedAt.fmiURL)
        configuration.fetch.transportURL = upstream.url(for: recordedAt.transportURL)
        // The upstreams are recordings on loopback: nobody to be polite to, and a demo explores many points and
        // boards from one client. The budgets stay in force for the live upstreams only.
        configuration.fetch.fmiRequestsPerMinute = 1_000_000
        configuration.fetch.fmiBurst = 100_000
        configuration.fetch.fmiClientShare = 1
        configuration.fetch.transportRequestsPerMinute = 1_000_000
        configuration.fetch.transportBurst = 100_000
        configuration.fetch.transportClientShare = 1
        logger.info("upstreams replayed from recordings", metadata: ["folder": "\(folder)", "answers": "\(recorded.count)"])
        return upstream
    }
}
