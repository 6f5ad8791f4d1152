import Basics
import Fetching
import Foundation
import Logging
import Metrics
import Synchronization
import Crypto
import X509

/// App Attest as the service runs it: challenges, registrations (an attestation verified completely, the device
/// stored) and token exchanges (an assertion verified, the counter moved by compare-and-set), and the tokens that
/// make a request count as its device (``AppAttestCredentials``). Every refusal is counted by its reason and stores
/// nothing.
public final class AppAttestService: Sendable {
    /// Why a step was not done, beside a failed proof: the caller's share of the verification budget is spent, or
    /// PostgreSQL did not answer.
    public enum Unavailable: Error, Sendable, Equatable {
        case busy(retryAfter: Int)
        case database
    }

    public let mode: AppAttestMode
    public let apps: [String]
    public let environment: AppAttestEnvironment
    private let verifier: AttestationVerifier
    private let challenges: AttestChallenge
    let tokens: AppToken
    private let store: AppAttestStore
    /// Verifying costs a certificate chain or a signature and a query: each address has its share.
    private let budget: RequestBudget<ClientGroup>
    private let revokedKeys = Mutex<Set<[UInt8]>>([])
    private let logger = Logger(label: "pier.app-attest")
    private let attestations: [String: Counter], assertions: [String: Counter]
    private let issued: Counter?, spendingRefused: Counter?

    public init(
        mode: AppAttestMode, apps: [String], environment: AppAttestEnvironment, secret: String, roots: [Certificate], store: AppAttestStore,
        budget: RequestBudget<ClientGroup>.Settings, metrics: MetricsRegistry?, clock: @escaping @Sendable () -> Double = { Double(MonotonicClock.now()) / 1e9 }
    ) {
        self.mode = mode
        self.apps = apps
        self.environment = environment
        verifier = AttestationVerifier(roots: roots)
        let signer = SignedBytes(secret: secret)
        challenges = AttestChallenge(signer: signer)
        tokens = AppToken(signer: signer)
        self.store = store
        self.budget = RequestBudget(budget, clock: clock)
        func counters(_ name: String, _ help: String) -> [String: Counter] {
            var counters: [String: Counter] = [:]
            for result in ["accepted"] + AppAttestFailure.codes {
                counters[result] = metrics?.counter(name, help: help, labels: [("result", result)])
            }
            return counters
        }
        attestations = counters("pier_app_attest_attestations_total", "App Attest attestations (POST /v1/app-attest/register), accepted or refused by reason.")
        assertions = counters("pier_app_attest_assertions_total", "App Attest assertions (POST /v1/app-attest/token), accepted or refused by reason.")
        issued = metrics?.counter("pier_app_attest_tokens_issued_total", help: "X-Pier-App-Token tokens issued.")
        spendingRefused = metrics?.counter(
            "pier_app_attest_spending_refused_total", help: "Requests refused (401) because they would have spent an upstream call or quota without a valid token.")
    }

    /// Reads the revoked devices (at start, and when another process announces a revocation).
    public func load() async throws {
        let revoked = try await store.revoked()
        revokedKeys.withLock { $0 = revoked }
    }

    func isRevoked(_ keyID: [UInt8]) -> Bool {
        revokedKeys.withLock { $0.contains(keyID) }
    }

    /// How many devices are revoked (as this process last read them).
    var revokedCount: Int { revokedKeys.withLock { $0.count } }

    /// A request whose body is not what App Attest sends (no JSON, a member missing), refused before any check.
    func countMalformed(attestation: Bool) {
        (attestation ? attestations : assertions)["malformed"]?.increment()
    }

    func countSpendingRefused() {
        spendingRefused?.increment()
    }

    // MARK: Steps

    /// A new challenge (no row: it is recognised by its MAC).
    public func challenge(now: Date = Date()) -> [UInt8] {
        challenges.issue(now: now)
    }

    /// Verifies `attestation` of `keyID` for `challenge` completely, stores the device and spends the challenge; the
    /// device's first token.
    public func register(keyID: [UInt8], attestation: [UInt8], challenge: [UInt8], client: IPAddress?, now: Date = Date()) async throws -> Result<String, AppAttestFailure> {
        try admit(client)
        let result: Result<String, AppAttestFailure>
        do {
            let expires = try challenges.check(challenge, now: now)
            let verified = try await verifier.verify(
                attestation: attestation, keyID: keyID, clientDataHash: Array(SHA256.hash(data: challenge)), apps: apps, environment: environment)
            result = try await stored { try await store.register(verified, keyID: keyID, challenge: challenge, expires: expires) }.map {
                tokens.issue(keyID: keyID, now: now)
            }
        } catch let failure as AppAttestFailure {
            result = .failure(failure)
        }
        count(result, in: attestations)
        return result
    }

    /// Verifies `assertion` over `challenge` with the stored key of `keyID`, moves its counter and spends the
    /// challenge; a new token.
    public func token(keyID: [UInt8], assertion: [UInt8], challenge: [UInt8], client: IPAddress?, now: Date = Date()) async throws -> Result<String, AppAttestFailure> {
        try admit(client)
        let result: Result<String, AppAttestFailure>
        do {
            let expires = try challenges.check(challenge, now: now)
            guard let device = try await stored({ try await store.device(keyID) }) else { throw AppAttestFailure.unknownKey }
            guard !device.revoked else { throw AppAttestFailure.revoked }
            guard apps.contains(device.app), device.environment == environment.rawValue else { throw AppAttestFailure.appID }
            let counter = try AssertionVerifier.verify(
                assertion: assertion, clientData: challenge, publicKey: device.publicKey, appID: device.app, previousCounter: device.counter)
            result = try await stored { try await store.advance(keyID, from: device.counter, to: counter, challenge: challenge, expires: expires) }.map {
                tokens.issue(keyID: keyID, now: now)
            }
        } catch let failure as AppAttestFailure {
            result = .failure(failure)
        }
        count(result, in: assertions)
        return result
    }

    private func admit(_ client: IPAddress?) throws(Unavailable) {
        if case .refused(_, let retryAfter, _) = budget.acquire(for: client?.groups ?? []) {
            throw .busy(retryAfter: RetryAfter.seconds(retryAfter))
        }
    }

    private func stored<T>(_ body: () async throws -> T) async throws(Unavailable) -> T {
        do { return try await body() } catch {
            logger.warning("App Attest could not read or write PostgreSQL", metadata: ["error": "\(error)"])
            throw .database
        }
    }

    private func count(_ result: Result<String, AppAttestFailure>, in counters: [String: Counter]) {
        switch result {
        case .success:
            counters["accepted"]?.increment()
            issued?.increment()
        case .failure(let failure):
            counters[failure.code]?.increment()
            // The reason's kind only: a key id or a challenge would say who asked.
            logger.info("App Attest refused a step", metadata: ["reason": "\(failure.code)"])
        }
    }
}
