import AppAttestTesting
import CBOR
import Crypto
import Foundation
import SwiftASN1
import X509
import XCTest

@testable import AppAttest

/// Attestations made by a certificate authority of the test's own, playing Apple's: accepted only when that root is
/// trusted, and each field a device writes changed in turn, each refused with its reason.
final class TestRootTests: XCTestCase {
    private let app = "ABCDE12345.org.example.pier"
    private let challenge = Array("a server challenge of 32 bytes..".utf8)

    private func verify(
        _ attestation: [UInt8], device: TestDevice, authority: TestAttestationAuthority, trusting roots: [Certificate]? = nil,
        clientData: [UInt8]? = nil, environment: AppAttestEnvironment = .development
    ) async throws -> AttestationVerifier.Verified {
        try await AttestationVerifier(roots: roots ?? [authority.root]).verify(
            attestation: attestation, keyID: device.keyID, clientDataHash: Array(SHA256.hash(data: clientData ?? challenge)), apps: [app],
            environments: [environment])
    }

    private func assertRefused(_ expected: AppAttestFailure, _ operation: () async throws -> Void, line: UInt = #line) async {
        do {
            try await operation()
            XCTFail("accepted, expected \(expected)", line: line)
        } catch let failure as AppAttestFailure {
            if case .certificateChain = expected, case .certificateChain = failure { return }
            XCTAssertEqual(failure, expected, line: line)
        } catch {
            XCTFail("\(error)", line: line)
        }
    }

    func testAnAttestationOfTheTestsOwnRootVerifiesOnlyWhereThatRootIsTrusted() async throws {
        let authority = try TestAttestationAuthority()
        let device = TestDevice(app: app)
        let attestation = try device.attestation(clientData: challenge, authority: authority)
        let verified = try await verify(attestation, device: device, authority: authority)
        XCTAssertEqual(verified.publicKey, Array(device.key.publicKey.x963Representation))
        XCTAssertEqual(verified.appID, app)
        XCTAssertEqual(verified.receipt, Array("test receipt".utf8))
        // Apple's root alone: the chain leads nowhere trusted.
        await assertRefused(.certificateChain("")) {
            _ = try await self.verify(attestation, device: device, authority: authority, trusting: [try AttestationVerifier.appleRoot()])
        }
        // Another authority's root: the same.
        let other = try TestAttestationAuthority()
        await assertRefused(.certificateChain("")) { _ = try await self.verify(attestation, device: device, authority: authority, trusting: [other.root]) }
        // Certificates not yet valid.
        let future = try TestAttestationAuthority(validFrom: Date().addingTimeInterval(86_400))
        await assertRefused(.certificateChain("")) {
            _ = try await self.verify(try device.attestation(clientData: self.challenge, authority: future), device: device, authority: future)
        }
    }

    func testEveryFieldADeviceWritesIsChecked() async throws {
        let authority = try TestAttestationAuthority()
        let device = TestDevice(app: app)
        func refused(_ expected: AppAttestFailure, _ attestation: [UInt8], clientData: [UInt8]? = nil, environment: AppAttestEnvironment = .development, line: UInt = #line) async {
            await assertRefused(expected, {
                _ = try await self.verify(attestation, device: device, authority: authority, clientData: clientData, environment: environment)
            }, line: line)
        }
        await refused(.format("packed"), try device.attestation(clientData: challenge, authority: authority, format: "packed"))
        await refused(.counter(1, expectedAbove: nil), try device.attestation(clientData: challenge, authority: authority, counter: 1))
        await refused(.environment, try device.attestation(clientData: challenge, authority: authority, aaguid: AppAttestEnvironment.production.aaguid))
        await refused(.environment, try device.attestation(clientData: challenge, authority: authority), environment: .production)
        await refused(.credentialID, try device.attestation(clientData: challenge, authority: authority, credentialID: Array(repeating: 7, count: 32)))
        await refused(.appID, try device.attestation(clientData: challenge, authority: authority, rpID: "ABCDE12345.org.example.other"))
        // Another challenge than the one certified.
        await refused(.nonce, try device.attestation(clientData: challenge, authority: authority), clientData: Array("another challenge".utf8))
        // The credential certificate of another key.
        let other = TestDevice(app: app)
        await assertRefused(.keyID) {
            _ = try await self.verify(try other.attestation(clientData: self.challenge, authority: authority), device: device, authority: authority)
        }
        // The authenticator data changed after certification (the nonce no longer covers them).
        var object = try CBORDecoder.decode(try device.attestation(clientData: challenge, authority: authority))
        if case .map(var pairs) = object, let index = pairs.firstIndex(where: { $0.key == .text("authData") }), var authData = pairs[index].value.bytes {
            authData[32] ^= 0x04
            pairs[index].value = .bytes(authData)
            object = .map(pairs)
        }
        await refused(.nonce, CBOREncoder.encode(object))
        let attested = try CBORDecoder.decode(try device.attestation(clientData: challenge, authority: authority))
        let chain = try XCTUnwrap(attested["attStmt"]?["x5c"]?.array)
        await refused(.malformed("the attestation has no authData"), CBOREncoder.encode(.map([(.text("fmt"), .text("apple-appattest")),
            (.text("attStmt"), .map([(.text("x5c"), .array(chain)), (.text("receipt"), .bytes([]))]))])))
    }

    func testAChainNotOfApplesShapeIsRefusedBeforeAnySignatureIsChecked() async throws {
        let authority = try TestAttestationAuthority()
        let device = TestDevice(app: app)
        func refused(_ reason: String, line: UInt = #line, _ x5c: @escaping ([[UInt8]]) -> [[UInt8]]) async throws {
            let attestation = try device.attestation(clientData: challenge, authority: authority, x5c: x5c)
            await assertRefused(.chainShape(reason), { _ = try await self.verify(attestation, device: device, authority: authority) }, line: line)
        }
        let notTwo = "certificates, not 2 (the credential certificate and Apple's intermediate)"
        try await refused("1 \(notTwo)") { [$0[0]] }
        try await refused("0 \(notTwo)") { _ in [] }
        var root = DER.Serializer()
        try root.serialize(authority.root)
        try await refused("3 \(notTwo)") { $0 + [root.serializedBytes] }
        // Keys cross-signed under the intermediate's name: refused by their count, before any of their signatures.
        let crossSigned = try TestAttestationAuthority.crossSigned(keys: 8)
        XCTAssertEqual(crossSigned.count, 64)
        try await refused("65 \(notTwo)") { [$0[0]] + crossSigned }
        // Two certificates, but not one issued by the other, or not certificates at all.
        try await refused("the intermediate issued itself") { [$0[0], crossSigned[0]] }
        try await refused("the credential certificate is not DER") { [[1], $0[1]] }
        try await refused("the intermediate is not an X.509 certificate") { [$0[0], [0x30, 0x00]] }
        try await refused("the intermediate is 5000 bytes, more than 4096") { [$0[0], Array(repeating: 0, count: 5000)] }
        // The leaf and the intermediate swapped.
        try await refused("the credential certificate is not issued by the intermediate") { [$0[1], $0[0]] }
        // Whatever the entries, an x5c that is not an array of byte strings.
        let notBytes = CBOREncoder.encode(.map([(.text("fmt"), .text("apple-appattest")), (.text("attStmt"), .map([(.text("x5c"), .array([.text("a"), .text("b")]))]))]))
        await assertRefused(.chainShape("an x5c entry is not a byte string")) { _ = try await self.verify(notBytes, device: device, authority: authority) }
    }

    func testAssertionsCountUpAndAreSignedByTheAttestedKey() async throws {
        let authority = try TestAttestationAuthority()
        var device = TestDevice(app: app)
        let key = try await verify(try device.attestation(clientData: challenge, authority: authority), device: device, authority: authority).publicKey
        let first = try device.assertion(clientData: Array("one".utf8))
        XCTAssertEqual(try AssertionVerifier.verify(assertion: first, clientData: Array("one".utf8), publicKey: key, appID: app, previousCounter: 0), 1)
        // The same assertion again: its counter is not above the one stored since.
        XCTAssertThrowsError(try AssertionVerifier.verify(assertion: first, clientData: Array("one".utf8), publicKey: key, appID: app, previousCounter: 1)) {
            XCTAssertEqual($0 as? AppAttestFailure, .counter(1, expectedAbove: 1))
        }
        let second = try device.assertion(clientData: Array("two".utf8))
        XCTAssertEqual(try AssertionVerifier.verify(assertion: second, clientData: Array("two".utf8), publicKey: key, appID: app, previousCounter: 1), 2)
        // Another device's signature over the same bytes.
        var other = TestDevice(app: app)
        let forged = try other.assertion(clientData: Array("two".utf8), counter: 3)
        XCTAssertThrowsError(try AssertionVerifier.verify(assertion: forged, clientData: Array("two".utf8), publicKey: key, appID: app, previousCounter: 2)) {
            XCTAssertEqual($0 as? AppAttestFailure, .signature)
        }
        // Another app's rpIdHash, signed by the right key.
        let elsewhere = try device.assertion(clientData: Array("three".utf8), rpID: "ABCDE12345.org.example.other")
        XCTAssertThrowsError(try AssertionVerifier.verify(assertion: elsewhere, clientData: Array("three".utf8), publicKey: key, appID: app, previousCounter: 2)) {
            XCTAssertEqual($0 as? AppAttestFailure, .appID)
        }
    }
}
