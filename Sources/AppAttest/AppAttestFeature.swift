import ArgumentParser
import Basics
import Feature
import Foundation
import HTTPServer
import Identity
import Limits
import Logging
import Scheduling
import Settings
import X509

/// App Attest as one feature: the routes that turn a genuine app instance's attestation and assertions into
/// `X-Pier-App-Token`s, and the credentials that make a request with one count as its device when it would spend an
/// upstream's budget or quota (docs/apps.md). Off by default: nothing changes.
public struct AppAttestFeature: Feature {
    /// The change feed's name for a revocation (`pier app-attest revoke` announces it; every replica reloads).
    public static let source = "app-attest"
    /// Announced when a command changed the registered keys or debug devices (every process reloads them).
    public static let topic = ChangeTopic(source)
    public var name: String { Self.source }

    public struct Settings: Sendable {
        /// `PIER_APP_ATTEST`.
        public var mode = AppAttestMode.off
        /// `PIER_APP_ATTEST_APPS`: `TEAMID.bundle.id`, comma-separated.
        public var apps: [String] = []
        /// `PIER_APP_ATTEST_ENVIRONMENT`: those accepted, comma-separated. The App Store's and TestFlight's keys are
        /// `production`, Xcode's builds on a device `development`; each device keeps the one it attested in.
        public var environments = [AppAttestEnvironment.production]
        /// `PIER_APP_ATTEST_REGISTRATIONS_PER_DAY`: new devices a network (an IPv4 /24, an IPv6 /48) may register per
        /// UTC day. Each device has a subscriber's share of every upstream's day, so minting keys must be bounded; a
        /// household reinstalls a few times a year, and a carrier's NAT puts a few thousand subscribers behind a /24,
        /// of whom few install an app on the same day; ten devices' shares (5 % each) stay inside a day's open part
        /// (docs/operations/app-attest.md, "App Attest").
        public var registrationsPerDay = 10
        /// `PIER_APP_ATTEST_SECRET` / `_FILE`: signs challenges and tokens; every replica has the same.
        public var secret: String?
        /// `PIER_APP_ATTEST_SECRET_PREVIOUS` / `_FILE`: the secret before a rotation — what it signed is still recognised
        /// until it expires (tokens within their hour), so rotating ends no token at once.
        public var previousSecret: String?
        /// `PIER_APP_ATTEST_DEBUG`: debug tokens (`pier app-attest debug-token create`) are exchanged for tokens of their
        /// debug devices — for the Simulator, CI and extensions, where App Attest cannot attest. Off by default.
        public var debugDevices = false
        /// `PIER_APP_ATTEST_REQUESTS_PER_MINUTE`, `_BURST`, `_CLIENT_SHARE`: registrations and token exchanges verified
        /// (a chain or a signature and a query each); an address may use its share (here 60 a minute, 10 at once: a
        /// carrier's address stands for many phones, each registering once and asking a token an hour).
        public var budget = BudgetSettings(ratePerMinute: 600, burst: 100, clientShare: 0.1)
        /// `PIER_APP_ATTEST_TEST_ROOT_FILE`: a root of the operator's tests, trusted beside Apple's — only with
        /// `PIER_APP_ATTEST_ALLOW_TEST_ROOT=yes`, and logged as an error at start.
        public var testRootPEM: String?

        public init() {}

        public init(_ reader: SettingsReader) throws {
            if let text = reader.string("PIER_APP_ATTEST", shown: mode.rawValue, meaning: "`monitor`: tokens are issued and every spending request's token is counted by its state, but nothing changes (every client is its address; nothing is refused). `prefer`: a valid `X-Pier-App-Token` makes a request count as its device (a subscriber's share of each day, whatever its address); requests without one are counted by address *and* share the anonymous pool. `require`: a request that would spend an upstream call or a quota unit without a valid token is `401`; answers already held (memory, PostgreSQL) and routes without an upstream stay open to everyone") {
                guard let mode = AppAttestMode(rawValue: text.lowercased()) else {
                    throw SettingsProblem.invalid(variable: "PIER_APP_ATTEST", value: text, expected: "off, monitor, prefer or require")
                }
                self.mode = mode
            }
            if let text = reader.string("PIER_APP_ATTEST_ENVIRONMENT", shown: environments.map(\.rawValue).joined(separator: ","), meaning: "`production` (App Store, TestFlight), `development` (builds run from Xcode on a device), or `production,development`: the aaguids attestations may carry; each device keeps the environment it attested in, and its token exchanges are accepted while that environment is listed") {
                let names = text.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
                let environments = names.compactMap(AppAttestEnvironment.init(rawValue:))
                guard !names.isEmpty, environments.count == names.count else {
                    throw SettingsProblem.invalid(variable: "PIER_APP_ATTEST_ENVIRONMENT", value: text, expected: "production, development, or both comma-separated")
                }
                self.environments = AppAttestEnvironment.allCases.filter(environments.contains)
            }
            registrationsPerDay = try reader.int("PIER_APP_ATTEST_REGISTRATIONS_PER_DAY", default: registrationsPerDay, in: 0...1_000_000, meaning: "new devices one network (an IPv4 /24, an IPv6 /48) may register per UTC day, counted in PostgreSQL across replicas; beyond it `429` until the next UTC day; `0` registers none")
            let apps = reader.string("PIER_APP_ATTEST_APPS", meaning: "`TEAMID.bundle.id`, comma-separated (required with `prefer`/`require`)") ?? ""
            self.apps = apps.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            for app in self.apps where !Self.isAppID(app) {
                throw SettingsProblem.invalid(variable: "PIER_APP_ATTEST_APPS", value: apps, expected: "TEAMID.bundle.id, comma-separated (a ten-character team id)")
            }
            secret = try reader.secret("PIER_APP_ATTEST_SECRET", meaning: "at least 32 characters, the same on every replica: signs challenges and tokens (required unless `off`); changing it without `_PREVIOUS` ends every token and challenge at once")
            previousSecret = try reader.secret("PIER_APP_ATTEST_SECRET_PREVIOUS", meaning: "the secret before a rotation: what it signed is still recognised until it expires (tokens within their hour, challenges within five minutes); see [Rotating the secret](operations/app-attest.md#rotating-the-secret)")
            debugDevices = try reader.flag("PIER_APP_ATTEST_DEBUG", default: debugDevices, meaning: "`on`: debug tokens (`pier app-attest debug-token create NAME`) are exchanged at `POST /v1/app-attest/debug` for tokens counted as the device `debug/NAME` — for the Simulator, CI and extensions; `off`: that route is `403` and debug devices' tokens count as `revoked`")
            budget = try reader.budget("PIER_APP_ATTEST", default: budget, rate: "registrations and token exchanges verified per minute (each a certificate chain or a signature and a query), and one address's and one network's part (60 a minute, 10 at once); only requests with a valid, unspent challenge count; beyond it `429` saying whose share is spent (this address's, this network's, or everybody's)", of: "verifications")
            let allowTestRoot = try reader.flag("PIER_APP_ATTEST_ALLOW_TEST_ROOT", default: false, meaning: "**tests only**: `yes` lets `PIER_APP_ATTEST_TEST_ROOT_FILE` name a test root (refused without it)")
            if let path = reader.string("PIER_APP_ATTEST_TEST_ROOT_FILE", meaning: "**tests only**: a PEM root trusted beside Apple's; refused at start unless `PIER_APP_ATTEST_ALLOW_TEST_ROOT=yes`, and logged as an error when used"), !path.isEmpty {
                guard allowTestRoot else {
                    throw SettingsProblem.invalid(
                        variable: "PIER_APP_ATTEST_TEST_ROOT_FILE", value: path, expected: "unset: a test root is trusted only with PIER_APP_ATTEST_ALLOW_TEST_ROOT=yes")
                }
                guard let pem = try? String(contentsOfFile: path, encoding: .utf8) else {
                    throw SettingsProblem.invalid(variable: "PIER_APP_ATTEST_TEST_ROOT_FILE", value: path, expected: "a readable PEM file")
                }
                testRootPEM = pem
            }
            guard mode != .off else { return }
            guard !self.apps.isEmpty else {
                throw SettingsProblem.invalid(variable: "PIER_APP_ATTEST_APPS", value: "", expected: "at least one TEAMID.bundle.id with PIER_APP_ATTEST=\(mode.rawValue)")
            }
            guard let secret, secret.utf8.count >= 32 else {
                throw SettingsProblem.invalid(
                    variable: "PIER_APP_ATTEST_SECRET", value: secret == nil ? "" : "(hidden)",
                    expected: "at least 32 characters with PIER_APP_ATTEST=\(mode.rawValue), the same on every replica")
            }
            if let previousSecret, previousSecret.utf8.count < 32 || previousSecret == secret {
                throw SettingsProblem.invalid(
                    variable: "PIER_APP_ATTEST_SECRET_PREVIOUS", value: "(hidden)", expected: "the secret before the rotation: at least 32 characters, not the current one")
            }
        }

        /// `ABCDE12345.org.example.app`: a ten-character team id, a dot, a bundle id.
        static func isAppID(_ text: String) -> Bool {
            let parts = text.split(separator: ".", maxSplits: 1)
            guard parts.count == 2, parts[0].count == 10, parts[0].allSatisfy({ $0.isASCII && ($0.isUppercase || $0.isNumber) }) else { return false }
            return parts[1].allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "." || $0 == "-") }
        }
    }

    public let service: AppAttestService?
    private let routes: AppAttestRoutes
    public let spenderResolver: (any SpenderResolver)?
    /// `pier app-attest revoke | debug-token | verify-attestation | verify-assertion`.
    public static var commands: [any ParsableCommand.Type] { [AppAttestCommand.self] }
    /// Sent by the app in every mode (an app may send it to a server where App Attest is off).
    public var requestHeaders: [String] { ["X-Pier-App-Token"] }
    /// `/health`'s `app_attest`: the mode, and when on, the environments, how many apps, whether a test root is trusted,
    /// whether debug devices are on, the devices revoked, the debug devices, and the last hour's spending requests with
    /// the share `require` would serve (never an app's id, a key id, a debug name or any token).
    private let health: @Sendable () -> MergedObject

    public init(settings: Settings, context: FeatureContext) throws {
        guard settings.mode != .off, let secret = settings.secret else {
            service = nil
            routes = AppAttestRoutes(service: nil, spenders: context.spenders)
            spenderResolver = nil
            health = { AppAttestHealth.object(mode: settings.mode.rawValue, on: nil) }
            return
        }
        var roots = [try AttestationVerifier.appleRoot()]
        if let pem = settings.testRootPEM {
            do { roots.append(try Certificate(pemEncoded: pem)) } catch {
                throw SettingsProblem.invalid(variable: "PIER_APP_ATTEST_TEST_ROOT_FILE", value: "(the file)", expected: "a PEM certificate")
            }
            Logger(label: "pier.app-attest").error(
                "App Attest trusts a TEST root beside Apple's (PIER_APP_ATTEST_TEST_ROOT_FILE): attestations it signs are accepted. Never in production.")
        }
        let service = AppAttestService(settings: settings, secret: secret, roots: roots, store: AppAttestStore(pool: context.pool), metrics: context.metrics)
        self.service = service
        routes = AppAttestRoutes(service: service, spenders: context.spenders)
        spenderResolver = AppAttestCredentials(service: service)
        let environment = settings.environments.map(\.rawValue).joined(separator: ",")
        let (apps, testRoot, debug) = (settings.apps.count, settings.testRootPEM != nil, settings.debugDevices)
        health = {
            let hour = service.lastHour
            return AppAttestHealth.object(mode: settings.mode.rawValue, on: AppAttestHealth.On(
                environment: environment, apps: apps, testRoot: testRoot, debug: debug, revokedDevices: service.revokedCount,
                debugDevices: service.debugCount,
                lastHour: .init(spendingRequests: hour.requests, verifiedShare: hour.provenShare.map { FixedDecimal($0, digits: 3) })))
        }
    }

    public func load() async throws { try await service?.load() }

    public func reload(_ topic: ChangeTopic) async throws {
        if topic == Self.topic { try await load() }
    }

    public func register(in router: inout Router) { routes.register(in: &router) }

    public var healthMembers: [String: @Sendable () -> any Encodable & Sendable] { ["app_attest": health] }

    /// Devices, debug devices and the anonymous pool (``ClientGroup/Kind``).
    public static var clientKinds: [ClientGroup.Kind] { [.device, .debugDevice, .anonymous] }
}
