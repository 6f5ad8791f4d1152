import ArgumentParser
import Fetching
import Foundation
import Logging
import Replay

/// Recorded upstream answers standing in for ZSG, MeteoNews and FMI (`serve --demo`, `serve|fetch --replay`).
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
        configuration.fetch.zsgURL = upstream.url(for: configuration.fetch.zsgURL)
        configuration.fetch.meteoNewsURL = upstream.url(for: configuration.fetch.meteoNewsURL)
        configuration.fetch.fmiURL = upstream.url(for: configuration.fetch.fmiURL)
        logger.info("upstreams replayed from recordings", metadata: ["folder": "\(folder)", "answers": "\(recorded.count)"])
        return upstream
    }
}
