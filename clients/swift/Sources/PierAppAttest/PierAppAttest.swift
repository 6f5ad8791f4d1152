import Foundation

#if canImport(CryptoKit)
import CryptoKit
#else
import Crypto
#endif

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An app's side of Pier's App Attest (docs/apps.md): a key generated once and kept (``AppAttestKeyStore``), attested
/// over a challenge and registered, then an assertion each hour exchanged for a token, and the token on every
/// request (`X-Pier-App-Token`). Where App Attest cannot attest (`isSupported` false: the Simulator, CI, extensions),
/// a `DEBUG` build uses the debug token the operator gave it. When nothing can be had — Apple's service unreachable,
/// Pier's shares spent, a refusal — it backs off and the app sends requests without a token meanwhile: Pier answers
/// what it holds, and under `prefer` spends the anonymous pool.
///
/// ```swift
/// let attest = PierAppAttest(baseURL: pier)
/// var request = URLRequest(url: pier.appending(path: "v1/places"))
/// await attest.authorize(&request)
/// ```
public actor PierAppAttest {
    public static let header = "X-Pier-App-Token"

    private let baseURL: URL
    private let provider: any AppAttestProvider
    private let keyStore: any AppAttestKeyStore
    private let debugToken: String?
    private let transport: any AppAttestTransport
    private let now: @Sendable () -> Date
    private var token: (value: String, expires: Date)?
    private var backoff = Backoff()
    /// One exchange at a time: concurrent callers wait for the same one.
    private var exchange: Task<String?, Never>?

    /// What the last attempt ended in, for the app's logs (never a token).
    public private(set) var lastProblem: String?

    /// - Parameters:
    ///   - provider: the device's App Attest (``DeviceCheckProvider`` in an app).
    ///   - keyStore: where the key id is kept (``KeychainKeyStore`` in an app).
    ///   - debugToken: the operator's debug token (`pier app-attest debug-token create`), used only in `DEBUG` builds
    ///     and only where `isSupported` is false. Pass it from outside the source (a CI secret, the scheme's
    ///     environment), never in a release build.
    public init(
        baseURL: URL, provider: any AppAttestProvider, keyStore: any AppAttestKeyStore, debugToken: String? = nil,
        transport: any AppAttestTransport = URLSessionAppAttestTransport(), now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.baseURL = baseURL
        self.provider = provider
        self.keyStore = keyStore
        #if DEBUG
        self.debugToken = debugToken
        #else
        self.debugToken = nil
        #endif
        self.transport = transport
        self.now = now
    }

    #if canImport(DeviceCheck) && canImport(Security)
    /// Apple's App Attest and the keychain; the debug token from the environment variable `PIER_DEBUG_TOKEN` (a
    /// `DEBUG` build's scheme).
    @available(iOS 14.0, macOS 11.0, tvOS 15.0, watchOS 9.0, *)
    public init(baseURL: URL) {
        self.init(
            baseURL: baseURL, provider: DeviceCheckProvider(), keyStore: KeychainKeyStore(),
            debugToken: ProcessInfo.processInfo.environment["PIER_DEBUG_TOKEN"])
    }
    #endif

    /// Adds `X-Pier-App-Token` when a token can be had.
    public func authorize(_ request: inout URLRequest) async {
        if let token = await currentToken() { request.setValue(token, forHTTPHeaderField: Self.header) }
    }

    /// A route answered `401` with `WWW-Authenticate: Pier-App-Token` (the token expired, was revoked, or the server
    /// rotated its secret): the next request asks a new one.
    public func tokenRefused() {
        token = nil
    }

    /// The token to send: the one held while it has more than five minutes left, else a new one; `nil` when none can
    /// be had now (send the request without one).
    public func currentToken() async -> String? {
        if let token, token.expires.timeIntervalSince(now()) > 300 { return token.value }
        if let exchange { return await exchange.value }
        let task = Task { await self.exchangeOnce() }
        exchange = task
        let value = await task.value
        exchange = nil
        return value
    }

    private func exchangeOnce() async -> String? {
        let held = token.flatMap { $0.expires > now() ? $0.value : nil }
        guard backoff.allows(now()) else { return held }
        do {
            let answer: TokenAnswer
            if provider.isSupported {
                answer = try await attestedToken()
            } else if let debugToken {
                answer = try await post("v1/app-attest/debug", ["debugToken": debugToken])
            } else {
                lastProblem = "App Attest is not supported here and no debug token was given"
                return nil
            }
            token = (answer.token, now().addingTimeInterval(TimeInterval(answer.expiresIn)))
            backoff.succeeded()
            lastProblem = nil
            return answer.token
        } catch {
            lastProblem = "\(error)"
            backoff.failed(now(), retryAfter: (error as? PierAppAttestError)?.retryAfter)
            return held
        }
    }

    /// Registers the key when it is new, else exchanges an assertion; a key Pier no longer knows (or the device
    /// refused) is replaced.
    private func attestedToken() async throws -> TokenAnswer {
        var key: AppAttestKey
        if let stored = keyStore.load() {
            key = stored
        } else {
            key = AppAttestKey(id: try await provider.generateKey(), registered: false)
            keyStore.save(key)
        }
        do {
            if key.registered { return try await assert(key) }
            do {
                let answer = try await register(key)
                key.registered = true
                keyStore.save(key)
                return answer
            } catch PierAppAttestError.refused(let reason) where reason.contains("registered already") {
                key.registered = true
                keyStore.save(key)
                return try await assert(key)
            }
        } catch PierAppAttestError.refused(let reason) where !reason.contains("challenge") {
            // A key that cannot be registered or is no longer known: the next attempt starts with a new one.
            keyStore.save(nil)
            throw PierAppAttestError.refused(reason)
        } catch AppAttestProviderError.invalidKey {
            keyStore.save(nil)
            throw AppAttestProviderError.invalidKey
        }
    }

    private func register(_ key: AppAttestKey) async throws -> TokenAnswer {
        let challenge = try await challenge()
        let attestation = try await provider.attestKey(key.id, clientDataHash: Self.sha256(challenge))
        return try await post("v1/app-attest/register", [
            "keyId": key.id, "attestation": attestation.base64EncodedString(), "challenge": challenge.base64EncodedString(),
        ])
    }

    private func assert(_ key: AppAttestKey) async throws -> TokenAnswer {
        let challenge = try await challenge()
        let assertion = try await provider.generateAssertion(key.id, clientDataHash: Self.sha256(challenge))
        return try await post("v1/app-attest/token", [
            "keyId": key.id, "assertion": assertion.base64EncodedString(), "challenge": challenge.base64EncodedString(),
        ])
    }

    private func challenge() async throws -> Data {
        let answer: ChallengeAnswer = try await post("v1/app-attest/challenge", [:])
        guard let bytes = Data(base64Encoded: answer.challenge) else { throw PierAppAttestError.unexpected("the challenge is not base64") }
        return bytes
    }

    private func post<Answer: Decodable>(_ path: String, _ object: [String: String]) async throws -> Answer {
        let url = baseURL.appendingPathComponent(path)
        let (status, body, retryAfter) = try await transport.post(url, json: try JSONEncoder().encode(object))
        switch status {
        case 200, 201:
            do { return try JSONDecoder().decode(Answer.self, from: body) } catch { throw PierAppAttestError.unexpected("\(path) answered \(status) with \(body.count) bytes") }
        case 401, 403:
            throw PierAppAttestError.refused((try? JSONDecoder().decode(ErrorAnswer.self, from: body).error) ?? "refused (\(status))")
        case 429, 503:
            throw PierAppAttestError.busy(retryAfter: retryAfter)
        default:
            throw PierAppAttestError.unexpected("\(path) answered \(status)")
        }
    }

    static func sha256(_ data: Data) -> Data {
        Data(SHA256.hash(data: data))
    }

    private struct ChallengeAnswer: Decodable {
        let challenge: String
    }

    private struct TokenAnswer: Decodable {
        let token: String
        let expiresIn: Int

        enum CodingKeys: String, CodingKey {
            case token
            case expiresIn = "expires_in"
        }
    }

    private struct ErrorAnswer: Decodable {
        let error: String
    }
}

/// Why the session has no new token now.
public enum PierAppAttestError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Pier refused the proof (`401`) or debug devices are off (`403`), with its reason.
    case refused(String)
    /// A share is spent or Pier is unavailable (`429`, `503`): wait `Retry-After`.
    case busy(retryAfter: Int?)
    case unexpected(String)

    var retryAfter: Int? {
        if case .busy(let seconds) = self { return seconds }
        return nil
    }

    public var description: String {
        switch self {
        case .refused(let reason): "Pier refused: \(reason)"
        case .busy(let seconds): "Pier is busy; retry after \(seconds.map { "\($0) s" } ?? "a while")"
        case .unexpected(let what): what
        }
    }
}
