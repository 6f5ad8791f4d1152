import Basics
import CruiseImportFormat
import Feature
import Foundation
import Geography
import Limits
import Logging
import Metrics
import OnDemand
import Scheduling
import UpstreamHTTP

/// Where a named port lies (Places' geocoder, asked through its typed API), or `nil`; on the importing client's share.
public typealias LocatePort = @Sendable (_ name: String, _ country: String?, _ client: Spender?) async -> Coordinate?

/// ShipTrip's booking import: the pasted text to Gemini with Pier's key and instructions, on the engine's budget for it
/// (``OnDemandUpstream/spend(for:units:retryAfterFailure:now:_:)``: each client's share, the day's requests, App Attest
/// where required), the answer checked (``ExtractedCruise``) and its ports placed by the geocoder. Nothing is kept: not
/// the text, not the answer — no cache, no table, no capture, no log line with either.
public final class CruiseImportService: Sendable {
    public struct Settings: Sendable {
        /// `PIER_GEMINI_REQUESTS_PER_MINUTE`, `…_BURST`, `…_CLIENT_SHARE`, `PIER_GEMINI_REQUESTS_PER_DAY`. One import is one
        /// request and costs real money: a few a minute for the server, a fifth of them for one client, 500 a day (each
        /// device or address its daily share, ``DailyShares``). Google's day ends at midnight Pacific time; so does this one.
        public var upstream = OnDemandUpstream.Settings(
            budget: BudgetSettings(ratePerMinute: 10, burst: 5, clientShare: 0.2), perDay: 500,
            timeZone: TimeZone(identifier: "America/Los_Angeles") ?? DailyQuota.utc,
            resets: " (it resets at midnight Pacific time, as Google's day does)", pauseAfterRefusal: 600, pauseAfterThrottle: 60)
        /// `Retry-After` after Gemini failed (a timeout, a `5xx`).
        public var retryAfterFailure = 30
        /// Ports geocoded at once for one import.
        public var portsAtOnce = 4

        public init() {}
    }

    public static let source = "cruise-import"

    public let settings: Settings
    public let upstream: OnDemandUpstream
    let gemini: GeminiClient
    let report: UpstreamReport
    private let locate: LocatePort?
    private let tokens: (prompt: Counter?, answer: Counter?)
    private let logger = Logger(label: "pier.cruise-import")

    public init(gemini: GeminiClient, upstream: OnDemandUpstream, settings: Settings, locate: LocatePort?, board: SourceStatusBoard?, metrics: MetricsRegistry?) {
        self.gemini = gemini
        self.upstream = upstream
        self.settings = settings
        self.locate = locate
        report = UpstreamReport(source: Self.source, board: board)
        let help = "Gemini tokens spent by cruise imports, by kind (the prompt with the pasted text, the model's answer)."
        tokens = (
            metrics?.counter("pier_gemini_tokens_total", help: help, labels: [("kind", "prompt")]),
            metrics?.counter("pier_gemini_tokens_total", help: help, labels: [("kind", "answer")])
        )
    }

    /// Reads what `/health` shows before the first import: the day's count.
    public func load() async throws {
        try await upstream.quota?.load()
    }

    /// The cruise in `request`'s text for `client`, or why not.
    public func importCruise(_ request: CruiseImportRequest, client: Spender?) async -> Result<ExtractedCruise, CruiseImportFailure> {
        let call: GeminiClient.Call
        switch await upstream.spend(for: client, retryAfterFailure: settings.retryAfterFailure, { await gemini.generate(request.text) }) {
        case .failure(let why): return .failure(.unavailable(why))
        case .success(let made): call = made
        }
        switch call {
        case .unreachable(let error):
            upstream.countFailure()
            report.failed(error, isAnswer: false)
            logger.warning("Gemini failed", metadata: ["error": "\(error.state)"])
            let said = if case .timedOut = error { "Gemini did not answer in time" } else { "Gemini could not be reached" }
            return .failure(.unavailable(OnDemandUnavailable(said, retryAfter: settings.retryAfterFailure)))
        case .garbage(let why):
            // Not captured: Gemini's answer may repeat the booking. Its shape is logged, never its text.
            upstream.countFailure()
            report.failed(GeminiGarbage(reason: why), isAnswer: true)
            logger.warning("Gemini sent an answer that is not its shape", metadata: ["why": "\(why)"])
            return .failure(.invalidAnswer("Gemini sent an answer Pier could not read"))
        case .answered(.error(let code, let status, let reason), let retryDelay):
            upstream.countFailure()
            return .failure(judge(code: code, status: status, reason: reason, retryDelay: retryDelay))
        case .answered(.refused(let reason, let spent), _):
            count(spent)
            report.answered()
            return .failure(.declined(reason))
        case .answered(.cut(let reason, let spent), _):
            count(spent)
            report.answered()
            return .failure(.invalidAnswer("the model stopped before the end of its answer (\(reason))"))
        case .answered(.text(let text, let spent), _):
            count(spent)
            report.answered()
            var cruise: ExtractedCruise
            do { cruise = try ExtractedCruise(modelJSON: text) } catch {
                logger.warning("Gemini's answer is not a valid cruise", metadata: ["why": "\(error.state)"])
                return .failure(.invalidAnswer(error.reason))
            }
            if cruise.isEmpty { return .failure(.noCruise) }
            await place(&cruise.ports, client: client)
            return .success(cruise)
        }
    }

    private func count(_ spent: GeminiAnswer.Tokens) {
        tokens.prompt?.increment(by: UInt64(max(0, spent.prompt)))
        tokens.answer?.increment(by: UInt64(max(0, spent.answer)))
    }

    /// Google's error envelope, said honestly: its limits and its refusals of this server's key, region or model pause
    /// calls as every upstream's do (``OnDemandUpstream/refused(message:detail:pause:report:logger:)``: every import
    /// meanwhile is `503` at once, without a call), with what the operator should do in the log and `/health`.
    /// Only the status and `ErrorInfo`'s reason are logged: Google's message may quote the booking.
    private func judge(code: Int, status: String, reason: String?, retryDelay: Int?) -> CruiseImportFailure {
        let said = "HTTP \(code) \(status)"
        logger.debug("Gemini's error", metadata: ["status": "\(said)", "reason": "\(reason ?? "none")"])
        func refused(_ sentence: String, _ advice: String) -> CruiseImportFailure {
            .unavailable(upstream.refused(message: sentence, detail: "\(said): \(advice)", pause: nil, report: report, logger: logger))
        }
        switch (code, status) {
        case (429, _):
            return .unavailable(upstream.throttled(
                message: "Gemini's limits for this server are reached", detail: said, retryAfter: retryDelay, report: report, logger: logger))
        case (400, "FAILED_PRECONDITION"):
            return refused("Gemini cannot be used by this server now", "the key's project needs billing (Gemini's free tier is not offered where this server is)")
        case (400, _) where reason?.hasPrefix("API_KEY_") == true, (401, _), (403, _):
            return refused("Gemini refused this server's key", "check PIER_GEMINI_API_KEY")
        case (404, _):
            return refused("Gemini cannot be used by this server now", "the model in PIER_GEMINI_MODEL is unknown or retired")
        case (400, _):
            // A request Pier made that Gemini refused (the schema, the model's limits): nothing a retry mends.
            report.answered(error: said)
            logger.error("Gemini refused the request Pier made", metadata: ["status": "\(said)"])
            return .invalidAnswer("Gemini refused the request (\(status))")
        default:
            report.answered(error: said)
            return .unavailable(OnDemandUnavailable("Gemini failed (\(said))", retryAfter: settings.retryAfterFailure))
        }
    }

    /// Gives each port that is not a sea day the point the geocoder finds for its name and country, each name asked
    /// once, ``Settings/portsAtOnce`` at a time.
    private func place(_ ports: inout [ExtractedCruise.Port], client: Spender?) async {
        guard let locate else { return }
        let names = Self.locatable(ports)
        var found: [PortName: Coordinate] = [:]
        await withTaskGroup(of: (PortName, Coordinate?).self) { group in
            var next = names.startIndex
            func ask() {
                guard next < names.endIndex else { return }
                let name = names[next]
                next += 1
                group.addTask { (name, await locate(name.name, name.country, client)) }
            }
            for _ in 0..<settings.portsAtOnce { ask() }
            while let (name, point) = await group.next() {
                if let point { found[name] = point }
                ask()
            }
        }
        for index in ports.indices {
            guard let point = found[PortName(ports[index])] else { continue }
            ports[index].latitude = point.latitude
            ports[index].longitude = point.longitude
        }
    }

    /// A port as the geocoder is asked for it.
    struct PortName: Hashable, Sendable {
        var name: String
        var country: String?

        init(_ port: ExtractedCruise.Port) {
            name = port.name
            country = port.country
        }
    }

    /// The distinct ports worth placing: not sea days, in order.
    static func locatable(_ ports: [ExtractedCruise.Port]) -> [PortName] {
        var seen = Set<PortName>()
        return ports.filter { $0.isSeaDay != true }.map(PortName.init).filter { seen.insert($0).inserted }
    }

    /// `upstream`, `paused_s`, `budget` and `quota` for the source's `/health` object.
    public func health() -> UpstreamHealth {
        upstream.health(report)
    }
}

/// Gemini's answer was not its shape (``UpstreamReport/failed(_:isAnswer:)``: `/health` says only that).
struct GeminiGarbage: Error, CustomStringConvertible {
    var reason: String
    var description: String { reason }
}
