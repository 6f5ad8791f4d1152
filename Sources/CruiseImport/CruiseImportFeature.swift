import Basics
import CruiseImportFormat
import Feature
import Foundation
import HTTPServer
import Identity
import Metrics
import ReplayMatching
import Settings

/// ShipTrip's booking import as a service (`POST /v1/cruise-import`; source `cruise-import`): the pasted confirmation
/// read by Gemini with the operator's key and Pier's instructions, checked, its ports placed — and nothing kept.
/// Without `PIER_GEMINI_API_KEY` the route answers `503` and `/health` shows the source `disabled` (the demo replays a
/// recorded answer to a made-up booking, key or not).
public struct CruiseImportFeature: Feature {
    public typealias Service = CruiseImportService

    public var name: String { Service.source }

    public struct Settings: Sendable {
        /// `PIER_GEMINI_URL`: the API's base (`/models/{model}:generateContent` is appended).
        public var url = GeminiClient.defaultURL
        /// `PIER_GEMINI_MODEL`.
        public var model = GeminiClient.defaultModel
        /// `PIER_GEMINI_API_KEY` (or `_FILE`).
        public var key: String?
        public var service = Service.Settings()

        public init() {}

        public init(_ reader: SettingsReader) throws {
            url = try reader.url("PIER_GEMINI_URL", default: url, meaning: "the API's base (`/models/{model}:generateContent` is appended)")
            key = try reader.secret("PIER_GEMINI_API_KEY", meaning: "the Gemini API key of the operator's Google project, for ShipTrip's booking import (sent only to Google, in the `x-goog-api-key` header — never in a URL, a log line, a capture or `/health`); or `PIER_GEMINI_API_KEY_FILE`. **Use a project with billing (the paid tier)** when any user is in the EEA, Switzerland or the UK (\"The cruise import\"). Unset: `POST /v1/cruise-import` answers `503` \"not configured\" with `Retry-After: 3600`; unset: `cruise-import` answers `503` and `/health` shows it `disabled`")
            if let model = reader.string("PIER_GEMINI_MODEL", shown: model, meaning: "the model asked (Google's named replacement for `gemini-2.5-flash`, which the app had compiled in); change it here when Google retires it — a `404` from Gemini says so in the log") {
                // A path segment: a model's name, nothing that could change the URL.
                guard !model.isEmpty, model.count <= 100, model.unicodeScalars.allSatisfy({ $0.isASCII && (Self.modelCharacters.contains($0)) }) else {
                    throw SettingsProblem.invalid(variable: "PIER_GEMINI_MODEL", value: model, expected: "a Gemini model name such as \(GeminiClient.defaultModel)")
                }
                self.model = model
            }
            service.upstream = try reader.upstream(
                "PIER_GEMINI", perSecond: false, rate: "imports a minute per process (each is one Gemini request and costs money; divide by the number of replicas)", of: "imports",
                perDay: ("PIER_GEMINI_REQUESTS_PER_DAY", "imports per day (Google's day: midnight Pacific time), counted in PostgreSQL across replicas and split in fair shares (a device's or address's 5 %, a network's 10 %: `PIER_DAILY_SHARE_*`); `0` = never call"), default: service.upstream)
        }

        private static let modelCharacters = CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyz0123456789.-_")
    }

    public static let path = "/v1/cruise-import"

    public let service: Service?
    private let spenders: Spenders
    /// `pier_cruise_imports_total{outcome}`, every outcome present from the start.
    private let outcomes: [String: Counter]
    static let outcomeLabels = ["imported", "bad_request", "not_configured", "refused", "unavailable", "no_cruise", "declined", "invalid_answer"]

    /// - Parameter locate: where a port lies (Places' geocoder); `nil`: ports go without coordinates.
    public init(settings: Settings, context: FeatureContext, locate: LocatePort?) {
        let key = context.upstreamKey(settings.key)
        context.board.register(Service.source, staleAfter: .seconds(86_400), onDemand: true, disabled: key == nil)
        spenders = context.spenders
        service = key.map { key in
            Service(
                gemini: GeminiClient(baseURL: settings.url, model: settings.model, key: key, client: context.upstream),
                upstream: context.onDemandUpstream("Gemini", metric: "gemini", settings: settings.service.upstream),
                settings: settings.service, locate: locate, board: context.board, metrics: context.metrics)
        }
        outcomes = Dictionary(uniqueKeysWithValues: Self.outcomeLabels.compactMap { outcome in
            context.metrics.map { metrics in
                (outcome, metrics.counter(
                    "pier_cruise_imports_total", help: "Cruise imports answered, by outcome (an invalid_answer is Gemini's answer failing Pier's checks).",
                    labels: [("outcome", outcome)]))
            }
        })
    }

    public func load() async throws { try await service?.load() }

    /// `POST /v1/cruise-import` `{"text": "…"}`: `200` with ShipTrip's `ExtractedCruiseData` (every member present), or
    /// `{"error"}` (``CruiseImportFailure/httpError``); each answer counted by its outcome. Never cached.
    public func register(in router: inout Router) {
        router.on(.post, Self.path) { [service, spenders, outcomes] request async throws -> HTTPResponse in
            switch await Self.answer(request, service: service, spenders: spenders) {
            case .success(let cruise):
                outcomes["imported"]?.increment()
                return .json(Array(cruise.json.utf8), headers: ["Cache-Control": "no-store"])
            case .failure(let failure):
                outcomes[failure.outcome]?.increment()
                throw failure.httpError
            }
        }
    }

    /// The body checked before anything else (no call for a bad one, with a key or without), then the import.
    private static func answer(_ request: HTTPRequest, service: Service?, spenders: Spenders) async -> Result<ExtractedCruise, CruiseImportFailure> {
        let parsed: CruiseImportRequest
        do throws(CruiseImportRequest.Problem) { parsed = try CruiseImportRequest(body: request.body) } catch { return .failure(.badRequest(error.reason)) }
        guard let service else { return .failure(.notConfigured) }
        return await service.importCruise(parsed, client: spenders.spender(of: request))
    }

    public func healthDetails(for source: String) -> (any Encodable & Sendable)? {
        source == Service.source ? service?.health() : nil
    }

    public var replay: [any ReplayMatcher] { [GeminiReplay()] }
}
