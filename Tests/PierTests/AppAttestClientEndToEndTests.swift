import AppAttestTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HTTPTesting
import PierAppAttest
import Synchronization
import XCTest

/// The app's side (clients/swift's PierAppAttest) against the real binary, its device played by the test authority's
/// devices exactly as `DCAppAttestService` answers: the key generated once and registered, a token held and renewed by
/// an assertion, the header sent, refusals and Apple's outages backed off, the debug token where App Attest cannot
/// attest.
extension AppAttestEndToEndTests {
    /// `DCAppAttestService` played by test devices: keys by id, failures on demand, calls counted.
    final class TestDeviceProvider: AppAttestProvider {
        private struct State {
            var devices: [String: TestDevice] = [:]
            var unavailable = false
            var calls = 0
        }

        let isSupported: Bool
        private let app: String
        private let authority: TestAttestationAuthority
        private let state = Mutex(State())

        init(app: String, authority: TestAttestationAuthority, supported: Bool = true) {
            self.app = app
            self.authority = authority
            isSupported = supported
        }

        var calls: Int { state.withLock { $0.calls } }
        var keys: Int { state.withLock { $0.devices.count } }
        func setUnavailable(_ unavailable: Bool) { state.withLock { $0.unavailable = unavailable } }

        private func device(_ keyID: String) throws -> TestDevice {
            try state.withLock { state in
                state.calls += 1
                if state.unavailable { throw AppAttestProviderError.serverUnavailable }
                guard let device = state.devices[keyID] else { throw AppAttestProviderError.invalidKey }
                return device
            }
        }

        func generateKey() async throws -> String {
            let device = TestDevice(app: app)
            let id = Data(device.keyID).base64EncodedString()
            state.withLock { $0.devices[id] = device }
            return id
        }

        func attestKey(_ keyID: String, clientDataHash: Data) async throws -> Data {
            Data(try device(keyID).attestation(clientDataHash: Array(clientDataHash), authority: authority))
        }

        func generateAssertion(_ keyID: String, clientDataHash: Data) async throws -> Data {
            var device = try device(keyID)
            let assertion = try device.assertion(clientDataHash: Array(clientDataHash))
            state.withLock { $0.devices[keyID] = device }
            return Data(assertion)
        }
    }

    private func metric(_ pier: PierProcess, _ line: String) throws -> Bool {
        try RawClient.request(port: pier.port, "/metrics").bodyText.contains(line)
    }

    func testTheAppsPackageRegistersOnceRenewsHourlyAndSendsTheHeader() async throws {
        let pier = try startAttesting("require")
        let provider = TestDeviceProvider(app: app, authority: authority)
        let keys = MemoryKeyStore()
        let clock = Mutex(Date())
        let attest = PierAppAttest(
            baseURL: try XCTUnwrap(URL(string: "http://127.0.0.1:\(pier.port)")), provider: provider, keyStore: keys, now: { clock.withLock { $0 } })

        var request = URLRequest(url: try XCTUnwrap(URL(string: "http://127.0.0.1:\(pier.port)/v1/places")))
        await attest.authorize(&request)
        let token = try XCTUnwrap(request.value(forHTTPHeaderField: "X-Pier-App-Token"))
        XCTAssertEqual(token.count, 99)
        XCTAssertEqual(keys.load()?.registered, true, "the key is kept, registered")
        XCTAssertEqual(try places(pier, 0, token: token).status, 200, "the token spends")
        // Held while it has more than five minutes left: no new exchange.
        let again = await attest.currentToken()
        XCTAssertEqual(again, token)
        XCTAssertEqual(provider.calls, 1, "one attestation, nothing more")

        // 56 minutes later: an assertion for a new token, with the same key.
        clock.withLock { $0 += 56 * 60 }
        let renewedAnswer = await attest.currentToken()
        let renewed = try XCTUnwrap(renewedAnswer)
        XCTAssertEqual(try places(pier, 1, token: renewed).status, 200)
        XCTAssertTrue(try metric(pier, #"pier_app_attest_assertions_total{result="accepted"} 1"#))
        // A route refused the token (401): the next request asks another.
        await attest.tokenRefused()
        let thirdAnswer = await attest.currentToken()
        let third = try XCTUnwrap(thirdAnswer)
        XCTAssertEqual(third.count, 99)
        XCTAssertTrue(try metric(pier, #"pier_app_attest_assertions_total{result="accepted"} 2"#))
        XCTAssertTrue(try metric(pier, #"pier_app_attest_attestations_total{result="accepted"} 1"#), "registered once")
        XCTAssertEqual(provider.keys, 1)

        // Apple's service unreachable: no token now, and no new attempt until the backoff has passed.
        await attest.tokenRefused()
        provider.setUnavailable(true)
        let none = await attest.currentToken()
        XCTAssertNil(none)
        let calls = provider.calls
        _ = await attest.currentToken()
        XCTAssertEqual(provider.calls, calls, "backing off")
        provider.setUnavailable(false)
        clock.withLock { $0 += 61 }
        let backAnswer = await attest.currentToken()
        let back = try XCTUnwrap(backAnswer, "after the backoff")

        // The operator revokes the device: the key is given up and a new one registered after the backoff.
        let revoke = try command(["revoke", try XCTUnwrap(keys.load()?.id)])
        XCTAssertEqual(revoke.status, 0, revoke.output)
        try assertRefusedOnceRevoked(pier, token: back)
        await attest.tokenRefused()
        let refused = await attest.currentToken()
        XCTAssertNil(refused)
        let problem = await attest.lastProblem
        XCTAssertEqual(problem, "Pier refused: this device is revoked")
        XCTAssertNil(keys.load(), "the revoked key is given up")
        clock.withLock { $0 += 3601 }
        let freshAnswer = await attest.currentToken()
        let fresh = try XCTUnwrap(freshAnswer)
        XCTAssertEqual(try places(pier, 2, token: fresh).status, 200)
        XCTAssertEqual(provider.keys, 2)
        XCTAssertEqual(pier.stop(), 0)
    }

    func testWhereAppAttestCannotAttestADebugBuildUsesItsDebugToken() async throws {
        let created = try command(["debug-token", "create", "simulator"])
        XCTAssertEqual(created.status, 0, created.output)
        let debugToken = try XCTUnwrap(created.output.split(separator: "\n").last.map(String.init))
        let pier = try startAttesting("require", ["PIER_APP_ATTEST_DEBUG": "on"])
        let base = try XCTUnwrap(URL(string: "http://127.0.0.1:\(pier.port)"))
        let unsupported = TestDeviceProvider(app: app, authority: authority, supported: false)
        let without = PierAppAttest(baseURL: base, provider: unsupported, keyStore: MemoryKeyStore())
        let nothing = await without.currentToken()
        XCTAssertNil(nothing, "no App Attest and no debug token: requests go without one")
        let simulator = PierAppAttest(baseURL: base, provider: unsupported, keyStore: MemoryKeyStore(), debugToken: debugToken)
        let tokenAnswer = await simulator.currentToken()
        let token = try XCTUnwrap(tokenAnswer)
        XCTAssertEqual(try places(pier, 0, token: token).status, 200)
        XCTAssertTrue(try metric(pier, #"pier_app_attest_spending_requests_total{state="debug"} 1"#))
        XCTAssertEqual(unsupported.calls, 0, "the device was never asked")
        XCTAssertEqual(pier.stop(), 0)
    }
}

