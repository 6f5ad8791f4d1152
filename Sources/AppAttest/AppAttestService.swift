import Basics
import Crypto
import Foundation
import Limits
import Logging
import Metrics
import Parsing
import Synchronization
import X509

/// App Attest as the service runs it: challenges, registrations (an attestation verified completely, the device
/// stored), token exchanges (an assertion verified, the counter moved by compare-and-set), debug tokens exchanged, and
/// the tokens that make a request count as its device (``AppAttestCredentials``). The routes are open to anyone, so
/// each step does the cheapest check first and bounds the work whose cost the sender chooses (``admit``). Every
/// refusal is counted by its reason; none stores a device.
public final class AppAttestService: Sendable {
    /// Why a step was not done, beside a failed proof: the caller's share of the verification budget is spent, or
    /// PostgreSQL did not answer.
    public enum Unavailable: Error, Sendable, Equatable {
        case busy(retryAfter: Int, whose: Whose)
        case database

        /// Whose share of verifications is spent.
        public enum Whose: String, Sendable, CaseIterable {
            /// This address's (an IPv4 address, an IPv6 /64 or /56).
            case address
            /// This network's (an IPv4 /24, an IPv6 /48).
            case network
            /// The server's, for everybody.
            case everybody
            /// This network's new devices of the day (`PIER_APP_ATTEST_REGISTRATIONS_PER_DAY`).
            case registrations
        }
    }

    public let mode: AppAttestMode
    public let apps: [String]
    public let environments: [AppAttestEnvironment]
    /// New devices a network (an IPv4 /24, an IPv6 /48) may register per UTC day.
    public var registrationsPerDay: Int { registrations.limit }
    /// The networks' registrations of the day, in PostgreSQL (every replica counts the same).
    let registrations: DailyCounter
    /// Whether debug tokens are exchanged and their tokens taken (`PIER_APP_ATTEST_DEBUG`).
    public let debugDevices: Bool
    private let verifier: AttestationVerifier
    private let challenges: AttestChallenge
    /// Challenges shown to this replica (memory; PostgreSQL holds those of verified proofs).
    private let spent = SpentChallenges()
    let tokens: AppToken
    private let store: AppAttestStore
    /// Verifying costs a certificate chain or a signature and a query: each address has its share.
    private let budget: RequestBudget<ClientGroup>
    private let revokedKeys = Mutex<Set<[UInt8]>>([])
    /// The debug devices not revoked, by their tokens' hashes (empty while debug devices are off).
    private let debugNames = Mutex<[[UInt8]: String]>([:])
    private let logger = Logger(label: "pier.app-attest")
    private let attestations: [String: Counter], assertions: [String: Counter], debugExchanges: [String: Counter]
    private let issued: Counter?, spendingRefused: Counter?
    /// Verifications refused before any work, by whose share was spent.
    private let refused: [String: Counter]
    /// Spending requests by what they showed, in every mode, and the last hour of them.
    private let spending: [String: Counter]
    private let window: RolloutWindow

    /// - Parameter secret: the settings' secret (the feature makes a service only with one).
    public init(
        settings: AppAttestFeature.Settings, secret: String, roots: [Certificate], store: AppAttestStore, metrics: MetricsRegistry?,
        clock: @escaping @Sendable () -> Double = { Double(MonotonicClock.now()) / 1e9 }
    ) {
        mode = settings.mode
        apps = settings.apps
        environments = settings.environments
        registrations = DailyCounter(scope: "app-attest-registrations", limit: settings.registrationsPerDay)
        debugDevices = settings.debugDevices
        verifier = AttestationVerifier(roots: roots)
        let signer = SignedBytes(secret: secret, previous: settings.previousSecret)
        challenges = AttestChallenge(signer: signer)
        tokens = AppToken(signer: signer)
        self.store = store
        budget = RequestBudget(settings.budget, clock: clock)
        window = RolloutWindow(clock: clock)
        func counters(_ name: String, _ help: String, _ label: String, _ values: [String]) -> [String: Counter] {
            var counters: [String: Counter] = [:]
            for value in values { counters[value] = metrics?.counter(name, help: help, labels: [(label, value)]) }
            return counters
        }
        let results = ["accepted"] + AppAttestFailure.codes
        attestations = counters("pier_app_attest_attestations_total", "App Attest attestations (POST /v1/app-attest/register), accepted or refused by reason.", "result", results)
        assertions = counters("pier_app_attest_assertions_total", "App Attest assertions (POST /v1/app-attest/token), accepted or refused by reason.", "result", results)
        debugExchanges = counters(
            "pier_app_attest_debug_exchanges_total", "Debug tokens exchanged (POST /v1/app-attest/debug): accepted, or refused as unknown or revoked.",
            "result", ["accepted", "refused"])
        refused = counters(
            "pier_app_attest_verifications_refused_total", "Registrations and token exchanges refused (429) before any verification, by whose share was spent.",
            "share", Unavailable.Whose.allCases.map(\.rawValue))
        spending = counters(
            "pier_app_attest_spending_requests_total",
            "Requests that would spend an upstream call or quota, by the X-Pier-App-Token they showed (counted in every mode but off).",
            "state", SpendingState.allCases.map(\.rawValue))
        issued = metrics?.counter("pier_app_attest_tokens_issued_total", help: "X-Pier-App-Token tokens issued.")
        spendingRefused = metrics?.counter(
            "pier_app_attest_spending_refused_total", help: "Requests refused (401) because they would have spent an upstream call or quota without a valid token.")
    }

    /// Reads the revoked devices and the debug devices (at start, and when another process announces a change).
    public func load() async throws {
        let revoked = try await store.revoked()
        let debug = debugDevices ? try await store.activeDebugDevices() : [:]
        revokedKeys.withLock { $0 = revoked }
        debugNames.withLock { $0 = debug }
    }

    /// How many devices are revoked and how many debug devices are not (as this process last read them).
    var revokedCount: Int { revokedKeys.withLock { $0.count } }
    var debugCount: Int { debugNames.withLock { $0.count } }

    /// What a request that would spend showed with `token`, and the group it counts as (or why it may not spend).
    func spender(token: Substring, now: Date) -> (SpendingState, Result<ClientGroup, AppAttestFailure>) {
        let holder: AppToken.Holder
        do { holder = try tokens.holder(of: token, now: now) } catch {
            return (error == .expired ? .expired : .forged, .failure(error.failure))
        }
        switch holder {
        case .device(let keyID):
            if revokedKeys.withLock({ $0.contains(keyID) }) { return (.revoked, .failure(.revoked)) }
            return (.verified, .success(ClientGroup(device: keyID)))
        case .debug(let hash):
            guard debugDevices else { return (.revoked, .failure(.debugOff)) }
            guard let name = debugNames.withLock({ $0[hash] }) else { return (.revoked, .failure(.revoked)) }
            return (.debug, .success(ClientGroup(debug: name)))
        }
    }

    /// Counts a spending request's state (every mode).
    func count(_ state: SpendingState) {
        spending[state.rawValue]?.increment()
        window.count(state)
    }

    /// The last hour's spending requests and the share `require` would serve.
    var lastHour: (requests: Int, provenShare: Double?) { window.lastHour() }

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

    /// Exchanges a debug token (`pier app-attest debug-token create`) for a token of its debug device: the token's hash
    /// looked up among the debug devices held in memory, after the caller's share (no challenge: nothing to verify).
    public func debug(token: String, client: IPAddress?, now: Date = Date()) throws(Unavailable) -> Result<String, AppAttestFailure> {
        try share(client?.groups ?? [])
        let hash = DebugToken.hash(of: token)
        guard debugDevices, debugNames.withLock({ $0[hash] != nil }) else {
            debugExchanges["refused"]?.increment()
            logger.info("App Attest refused a debug token")
            return .failure(debugDevices ? .debugToken : .debugOff)
        }
        debugExchanges["accepted"]?.increment()
        issued?.increment()
        return .success(tokens.issue(.debug(hash), now: now))
    }

    /// Verifies `attestation` of `keyID` for `challenge` completely and stores the device; the device's first token.
    public func register(keyID: [UInt8], attestation: [UInt8], challenge: [UInt8], client: IPAddress?, now: Date = Date()) async throws(Unavailable) -> Result<String, AppAttestFailure> {
        let result: Result<String, AppAttestFailure>
        do {
            let (expires, network) = try await admit(challenge, client, registering: true, now: now)
            let verified = try await verifier.verify(
                attestation: attestation, keyID: keyID, clientDataHash: Array(SHA256.hash(data: challenge)), apps: apps, environments: environments)
            try await spendStored(challenge, expires)
            switch try await stored({ try await store.register(verified, keyID: keyID, network: network) }) {
            case .stored: result = .success(tokens.issue(.device(keyID), now: now))
            case .refused(let failure): result = .failure(failure)
            case .networkSpent: throw registrationsSpent(now)
            }
        } catch let failure as AppAttestFailure {
            result = .failure(failure)
        } catch {
            throw error as? Unavailable ?? .database
        }
        count(result, in: attestations)
        return result
    }

    /// Verifies `assertion` over `challenge` with the stored key of `keyID` and moves its counter; a new token.
    public func token(keyID: [UInt8], assertion: [UInt8], challenge: [UInt8], client: IPAddress?, now: Date = Date()) async throws(Unavailable) -> Result<String, AppAttestFailure> {
        let result: Result<String, AppAttestFailure>
        do {
            let (expires, _) = try await admit(challenge, client, registering: false, now: now)
            guard let device = try await stored({ try await store.device(keyID) }) else { throw AppAttestFailure.unknownKey }
            guard !device.revoked else { throw AppAttestFailure.revoked }
            guard apps.contains(device.app), environments.map(\.rawValue).contains(device.environment) else { throw AppAttestFailure.appID }
            let counter = try AssertionVerifier.verify(
                assertion: assertion, clientData: challenge, publicKey: device.publicKey, appID: device.app, previousCounter: device.counter)
            try await spendStored(challenge, expires)
            result = try await stored { try await store.advance(keyID, from: device.counter, to: counter) }.map {
                tokens.issue(.device(keyID), now: now)
            }
        } catch let failure as AppAttestFailure {
            result = .failure(failure)
        } catch {
            throw error as? Unavailable ?? .database
        }
        count(result, in: assertions)
        return result
    }

    /// What is checked before the work whose cost the sender chooses, cheapest first and nothing written before the
    /// shares: the challenge's MAC and expiry (free), the caller's share of the verifications (its address's and its
    /// network's, and everybody's), the challenge spent here (memory: a replay is refused whatever the first outcome),
    /// and for a registration its network's day (a read). Returns the challenge's expiry, for ``spendStored(_:_:)``
    /// once the proof verified, and the network a registration counts against (none without an address).
    private func admit(_ challenge: [UInt8], _ client: IPAddress?, registering: Bool, now: Date) async throws -> (expires: Date, network: AppAttestStore.Counted?) {
        let expires = try challenges.check(challenge, now: now)
        try share(client?.groups ?? [])
        guard spent.spend(challenge, expires: expires, now: now) else { throw AppAttestFailure.challenge("was used already") }
        guard registering, let network = client?.network else { return (expires, nil) }
        let counted = AppAttestStore.Counted(counter: registrations, key: network.description, day: DailyCounter.day(now))
        guard try await stored({ try await registrations.count(counted.key, day: counted.day, in: store.pool) }) < registrationsPerDay else {
            throw registrationsSpent(now)
        }
        return (expires, counted)
    }

    /// A verified proof's challenge spent where every replica sees it (one row): shown to another replica, it is refused.
    private func spendStored(_ challenge: [UInt8], _ expires: Date) async throws {
        guard try await stored({ try await store.spend(challenge, expires: expires) }) else { throw AppAttestFailure.challenge("was used already") }
    }

    /// One verification taken from the shares of `groups` (an address's, its network's) and everybody's.
    private func share(_ groups: [ClientGroup]) throws(Unavailable) {
        if case .refused(let refusal, let retryAfter, let index) = budget.acquire(for: groups) {
            let whose: Unavailable.Whose = refusal == .budget ? .everybody : index.map { groups[$0].kind.isSubscriber } == true ? .address : .network
            refused[whose.rawValue]?.increment()
            throw .busy(retryAfter: RetryAfter.seconds(retryAfter), whose: whose)
        }
    }

    /// The network's registrations of the day are spent: retry on the next UTC day.
    private func registrationsSpent(_ now: Date) -> Unavailable {
        refused[Unavailable.Whose.registrations.rawValue]?.increment()
        return .busy(retryAfter: DailyCounter.secondsToNextDay(now), whose: .registrations)
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
