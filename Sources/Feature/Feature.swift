import ArgumentParser
import Basics
import HTTPServer
import Identity
import ReplayMatching
import Scheduling

/// One capability of the service (ships, lakes, weather, departures, …) as the executable sees it: a value
/// that says what it fetches, what it serves and how it reports, so that the executable only holds a list.
///
/// A feature module exports one type conforming to this protocol. It reads its own settings
/// (``SettingsReader``, with its defaults written once, in its own module), builds its services from the
/// shared ``FeatureContext`` (the pool, the upstream client, the status board, the fetch runner, metrics), and
/// registers its sources on the board while it is made. Like Hummingbird's `RouteCollection` or a Go
/// `http.Handler` mounted on a mux, adding a feature to the service is one line in the executable's list.
public protocol Feature: Sendable {
    /// What the feature is called in logs and errors (`ships`); its sources carry their own names.
    var name: String { get }

    /// Scheduled jobs (the background fetcher runs them; `pier fetch <source>` runs one now).
    var jobs: [FetchJob] { get }

    /// Fills memory from PostgreSQL at start-up, so a restart serves at once without asking any upstream.
    func load() async throws

    /// Reloads what `topic` names from PostgreSQL: another process announced new data for it. Topics this feature
    /// does not subscribe to are ignored. By default: ``load()`` again when `topic` is one of the feature's jobs'.
    func reload(_ topic: ChangeTopic) async throws

    /// Work the feature does beside serving, on every replica, for as long as `pier serve` runs (delivering pushes):
    /// started once the server listens, cancelled when it shuts down. By default nothing.
    func run() async

    /// New data for `topic` is in PostgreSQL — stored by this process, or by another and reloaded here: for a feature
    /// that acts on another's data (pushes when warnings change). By default nothing.
    func changed(_ topic: ChangeTopic) async

    /// Registers the feature's routes (HTTP lives in the feature's routes, never in its services).
    func register(in router: inout Router)

    /// More members for `source`'s object in `/health` — a value whose members join the source's (it encodes a keyed
    /// container) — or `nil`. Values, never JSON text: `/health` is encoded once (``OrderedJSONEncoder``).
    func healthDetails(for source: String) -> (any Encodable & Sendable)?

    /// More top-level members of `/health`, a value by name, read at most once a second: the feature's state when it
    /// is no source's (App Attest's mode). States only, never what a request asked.
    var healthMembers: [String: @Sendable () -> any Encodable & Sendable] { get }

    /// Conditions the service cannot serve without, which this feature watches (the database's monitor): `/health`
    /// reports each and answers `503` while one is not ready.
    var readiness: [Readiness] { get }

    /// How recordings of the feature's upstreams answer requests they were not made for (`--replay`, `--demo`).
    var replay: [any ReplayMatcher] { get }

    /// The feature's link of the identity chain (``Spenders``): who a request showing its credential counts as when it
    /// would spend (App Attest's device tokens); `nil`: the feature has none.
    var spenderResolver: (any SpenderResolver)? { get }

    /// The kinds of groups its ``spenderResolver`` counts callers in beyond an address's (App Attest's devices, debug
    /// devices and anonymous pool): the executable hands them to ``Spenders`` before any feature is made, so that every
    /// upstream counts their refusals from the start.
    static var clientKinds: [ClientGroup.Kind] { get }

    /// Request headers the feature's clients send beyond the usual (`X-Pier-App-Token`), allowed by the CORS preflight.
    var requestHeaders: [String] { get }

    /// Fills the demo's database with what its recordings cannot give (a lake's level history), once at start, before
    /// ``load()`` (`pier serve --demo`, from the demo's recordings folder).
    func seedDemo(from directory: String) async throws

    /// Settings the demo (`pier serve --demo`) uses where the environment sets none: a feature that is off by default
    /// but needs no upstream shows itself in the demo (Next Wave's community, with a demo secret).
    static var demoSettings: [String: String] { get }

    /// The feature's own `pier` subcommands (`pier app-attest …`, `pier nextwave …`); they run in ``Commands/current``.
    static var commands: [any ParsableCommand.Type] { get }

    /// Its importers of data collected elsewhere, the subcommands of `pier import` (`water-levels`,
    /// `nextwave-supabase`); they run in ``Commands/current``.
    static var imports: [any ParsableCommand.Type] { get }

    /// Its upstreams' parsers, as `pier bench-parse` times them and the fuzz targets are checked against (each has a
    /// folder `fuzz/targets/<name>`).
    static var parsers: [ParseBenchmark] { get }
}

extension Feature {
    public var jobs: [FetchJob] { [] }
    public func load() async throws {}
    public func run() async {}
    public func changed(_ topic: ChangeTopic) async {}
    public func reload(_ topic: ChangeTopic) async throws {
        if jobs.contains(where: { $0.topic == topic }) { try await load() }
    }
    public func healthDetails(for source: String) -> (any Encodable & Sendable)? { nil }
    public var healthMembers: [String: @Sendable () -> any Encodable & Sendable] { [:] }
    public var readiness: [Readiness] { [] }
    public var replay: [any ReplayMatcher] { [] }
    public var spenderResolver: (any SpenderResolver)? { nil }
    public static var clientKinds: [ClientGroup.Kind] { [] }
    public var requestHeaders: [String] { [] }
    public func seedDemo(from directory: String) async throws {}
    public static var demoSettings: [String: String] { [:] }
    public static var commands: [any ParsableCommand.Type] { [] }
    public static var imports: [any ParsableCommand.Type] { [] }
    public static var parsers: [ParseBenchmark] { [] }
}
