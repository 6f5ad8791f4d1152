import Crypto
import Foundation
import UpstreamTesting
import X509
import XCTest

@testable import AppAttest
import CBOR

/// Attestations and assertions recorded on real devices, verified at their recorded instants through Apple's root,
/// refused at today's date, and refused with their reason when any part is changed.
final class AttestationVerifierTests: XCTestCase {
    private func data(_ base64: String?) throws -> [UInt8] { Array(try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(base64)))) }

    func testApplesRootIsThePublishedCertificate() throws {
        let root = try AttestationVerifier.appleRoot()
        let der = try root.serializeAsPEM().derBytes
        XCTAssertEqual(SHA256.hash(data: der).map { String(format: "%02x", $0) }.joined(), "1cb9823ba28ba6ad2d33a006941de2ae4f513ef1d4e831b9f7e0fa7b6242c932")
        XCTAssertEqual(root.subject.description, "ST=California,O=Apple Inc.,CN=Apple App Attestation Root CA")
    }

    /// One recording's attestation: the object, key id, client data hash, app id and recorded instant.
    private struct Recorded {
        var name: String
        var attestation: [UInt8]
        var keyID: [UInt8]
        var clientData: [UInt8]
        var appID: String
        var at: Date
        var publicKeyPEM: String
        var assertion: [UInt8]
        var assertionClientData: [UInt8]
        var assertionCounter: UInt32
    }

    private func recordings() throws -> [Recorded] {
        try CBORDecoderTests.recordings.map { name in
            let documents = try CBORDecoderTests.documents(name)
            let attestation = try XCTUnwrap(documents.first { $0["type"] == "attestation" })
            let assertion = try XCTUnwrap(documents.first { $0["type"] == "assertion" })
            let text = String(decoding: try Fixtures.bytes("appattest/veehaitch", name), as: UTF8.self)
            let pem = try XCTUnwrap(text.range(of: "-----BEGIN PUBLIC KEY-----").flatMap { start in
                text.range(of: "-----END PUBLIC KEY-----", range: start.upperBound..<text.endIndex).map { String(text[start.lowerBound..<$0.upperBound]) }
            })
            return Recorded(
                name: name, attestation: try data(attestation["attestationBase64"]), keyID: try data(attestation["keyIdBase64"]),
                clientData: try data(attestation["clientDataBase64"]),
                appID: "\(try XCTUnwrap(attestation["teamIdentifier"])).\(try XCTUnwrap(attestation["bundleIdentifier"]))",
                at: try Date(try XCTUnwrap(attestation["timestamp"]), strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: true)),
                publicKeyPEM: pem.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: "\n"),
                assertion: try data(assertion["assertionBase64"]), assertionClientData: try data(assertion["clientDataBase64"]),
                assertionCounter: UInt32(try XCTUnwrap(assertion["counter"])) ?? 0)
        }
    }

    private func verify(
        _ recorded: Recorded, attestation: [UInt8]? = nil, keyID: [UInt8]? = nil, clientData: [UInt8]? = nil, apps: [String]? = nil,
        environment: AppAttestEnvironment = .development, at: Date? = nil
    ) async throws -> AttestationVerifier.Verified {
        try await AttestationVerifier(roots: [try AttestationVerifier.appleRoot()]).verify(
            attestation: attestation ?? recorded.attestation, keyID: keyID ?? recorded.keyID,
            clientDataHash: Array(SHA256.hash(data: clientData ?? recorded.clientData)), apps: apps ?? ["ABCDE12345.other.app", recorded.appID],
            environments: [environment], at: at ?? recorded.at)
    }

    private func assertRefused(_ expected: AppAttestFailure, _ recorded: Recorded, _ operation: () async throws -> Void) async {
        do {
            try await operation()
            XCTFail("\(recorded.name): accepted, expected \(expected)")
        } catch let failure as AppAttestFailure {
            if case .certificateChain = expected, case .certificateChain = failure { return }
            XCTAssertEqual(failure, expected, recorded.name)
        } catch {
            XCTFail("\(recorded.name): \(error)")
        }
    }

    func testEveryRecordedAttestationVerifiesAtItsInstantAndItsAssertionToo() async throws {
        for recorded in try recordings() {
            let verified = try await verify(recorded)
            XCTAssertEqual(verified.appID, recorded.appID, recorded.name)
            XCTAssertEqual(verified.environment, .development)
            XCTAssertEqual(verified.counter, 0)
            XCTAssertFalse(verified.receipt.isEmpty)
            XCTAssertEqual(verified.publicKeyPEM, recorded.publicKeyPEM, recorded.name)
            let counter = try AssertionVerifier.verify(
                assertion: recorded.assertion, clientData: recorded.assertionClientData, publicKey: verified.publicKey, appID: recorded.appID,
                previousCounter: 0)
            XCTAssertEqual(counter, recorded.assertionCounter, recorded.name)
        }
    }

    func testARecordedAttestationIsRefusedTodayAndWhenAnythingIsChanged() async throws {
        for recorded in try recordings().prefix(2) {
            await assertRefused(.certificateChain(""), recorded) { _ = try await self.verify(recorded, at: Date()) }
            await assertRefused(.appID, recorded) { _ = try await self.verify(recorded, apps: ["ABCDE12345.other.app"]) }
            await assertRefused(.environment, recorded) { _ = try await self.verify(recorded, environment: .production) }
            await assertRefused(.nonce, recorded) { _ = try await self.verify(recorded, clientData: recorded.clientData + [0x21]) }
            var otherKey = recorded.keyID
            otherKey[0] ^= 0xFF
            await assertRefused(.keyID, recorded) { _ = try await self.verify(recorded, keyID: otherKey) }
            await assertRefused(.malformed("the attestation is not CBOR: CBOR ends inside an item (byte 0)"), recorded) {
                _ = try await self.verify(recorded, attestation: [])
            }
        }
    }

    func testATamperedAssertionIsRefusedWithItsReason() async throws {
        let recorded = try XCTUnwrap(try recordings().first)
        let key = try await verify(recorded).publicKey
        func check(_ assertion: [UInt8]? = nil, clientData: [UInt8]? = nil, app: String? = nil, previous: UInt32 = 0) throws -> UInt32 {
            try AssertionVerifier.verify(
                assertion: assertion ?? recorded.assertion, clientData: clientData ?? recorded.assertionClientData, publicKey: key,
                appID: app ?? recorded.appID, previousCounter: previous)
        }
        XCTAssertThrowsError(try check(clientData: recorded.assertionClientData + [0])) { XCTAssertEqual($0 as? AppAttestFailure, .signature) }
        XCTAssertThrowsError(try check(app: "ABCDE12345.other.app")) { XCTAssertEqual($0 as? AppAttestFailure, .appID) }
        XCTAssertThrowsError(try check(previous: recorded.assertionCounter)) {
            XCTAssertEqual($0 as? AppAttestFailure, .counter(recorded.assertionCounter, expectedAbove: recorded.assertionCounter))
        }
        // The counter inside the signed data changed: the signature no longer holds.
        var object = try CBORDecoder.decode(recorded.assertion)
        if case .map(var pairs) = object, let index = pairs.firstIndex(where: { $0.key == .text("authenticatorData") }), var authData = pairs[index].value.bytes {
            authData[36] &+= 1
            pairs[index].value = .bytes(authData)
            object = .map(pairs)
        }
        XCTAssertThrowsError(try check(CBOREncoder.encode(object))) { XCTAssertEqual($0 as? AppAttestFailure, .signature) }
        XCTAssertThrowsError(try check([0xA0])) { guard case .malformed = $0 as? AppAttestFailure else { return XCTFail("\($0)") } }
    }
}
