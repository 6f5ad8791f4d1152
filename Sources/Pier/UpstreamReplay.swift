import ArgumentParser
import Foundation
import Logging
import Replay
import UpstreamHTTP

/// Recorded upstream answers standing in for every upstream (`serve --demo`, `serve|fetch --replay`).
enum UpstreamReplay {
    /// Starts a replay of the recordings in `folder` (if any) and routes every upstream request to it
    /// (``Configuration/upstreamRoute``; the features then also lift their request budgets: there is no one to
    /// be polite to on loopback).
    ///
    /// - Parameter moveToNow: the demo: times moved to now, and every configured `PIER_*_URL` ignored — the
    ///   bundled recordings were made against the real upstreams, so each feature keeps its default URL.
    static func start(_ folder: String?, moveToNow: Bool, into configuration: inout Configuration, logger: Logger) throws -> ReplayUpstream? {
        guard let folder else { return nil }
        let recorded: [UpstreamCapture.Recorded]
        do {
            recorded = try ReplayUpstream.read(URL(fileURLWithPath: folder))
        } catch {
            throw ValidationError("no recorded upstream answers in \(folder): \(error)")
        }
        let upstream = try ReplayUpstream(recorded: recorded, moveToNow: moveToNow)
        configuration.upstreamRoute = { [upstream] url in upstream.url(for: url) }
        if moveToNow {
            let ignored = configuration.environment.keys.filter { $0.hasPrefix("PIER_") && $0.hasSuffix("_URL") }
            for name in ignored { configuration.environment[name] = nil }
            configuration.readVariables.formUnion(ignored)
        }
        logger.info("upstreams replayed from recordings", metadata: ["folder": "\(folder)", "answers": "\(recorded.count)"])
        return upstream
    }
}
