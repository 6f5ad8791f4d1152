import Foundation
import UpstreamTesting
import XCTest

@testable import AppAttest
import AppAttestFormat
import CBOR

/// The hand-written CBOR decoder on RFC 8949's own examples (Appendix A), on what it must refuse, and on the
/// attestations and assertions real devices recorded.
final class CBORDecoderTests: XCTestCase {
    private func hex(_ text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var index = text.startIndex
        while index < text.endIndex {
            let next = text.index(index, offsetBy: 2)
            bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
            index = next
        }
        return bytes
    }

    func testRFC8949Examples() throws {
        let examples: [(String, CBOR)] = [
            ("00", .unsigned(0)), ("17", .unsigned(23)), ("1818", .unsigned(24)), ("1903e8", .unsigned(1000)),
            ("1bffffffffffffffff", .unsigned(UInt64.max)), ("20", .negative(0)), ("3863", .negative(99)),
            ("3bffffffffffffffff", .negative(UInt64.max)), ("f93c00", .float(1.0)), ("f97bff", .float(65504.0)),
            ("fa47c35000", .float(100000.0)), ("fb3ff199999999999a", .float(1.1)), ("f90001", .float(5.960464477539063e-8)),
            ("f4", .bool(false)), ("f5", .bool(true)), ("f6", .null), ("f7", .undefined), ("f0", .simple(16)), ("f8ff", .simple(255)),
            ("c074323031332d30332d32315432303a30343a30305a", .tagged(0, .text("2013-03-21T20:04:00Z"))),
            ("4401020304", .bytes([1, 2, 3, 4])), ("60", .text("")), ("6449455446", .text("IETF")), ("62c3bc", .text("ü")),
            ("80", .array([])), ("83010203", .array([.unsigned(1), .unsigned(2), .unsigned(3)])),
            ("8301820203820405", .array([.unsigned(1), .array([.unsigned(2), .unsigned(3)]), .array([.unsigned(4), .unsigned(5)])])),
            ("a0", .map([])), ("a201020304", .map([(.unsigned(1), .unsigned(2)), (.unsigned(3), .unsigned(4))])),
            ("a26161016162820203", .map([(.text("a"), .unsigned(1)), (.text("b"), .array([.unsigned(2), .unsigned(3)]))])),
        ]
        for (encoded, expected) in examples {
            XCTAssertEqual(try CBORDecoder.decode(hex(encoded)), expected, encoded)
        }
        XCTAssertEqual(CBOR.negative(99).int, -100)
        XCTAssertTrue(try CBORDecoder.decode(hex("f97e00")) == .float(.nan))
    }

    func testWhatIsRefusedIsRefusedWithItsReason() {
        let refused: [(String, CBORError)] = [
            ("5f42010243030405ff", .indefiniteLength(at: 0)), ("9fff", .indefiniteLength(at: 0)), ("bf6346756ef5ff", .indefiniteLength(at: 0)),
            ("1c", .reserved(at: 0)), ("f818", .reserved(at: 0)), ("19ff", .truncated(at: 1)), ("44010203", .tooLong(at: 0)),
            ("62c328", .invalidText(at: 0)), ("a201020103", .duplicateKey(at: 3)), ("0000", .trailingBytes(at: 1)),
            ("5bffffffffffffffff", .tooLong(at: 0)), ("9bffffffffffffffff", .tooLong(at: 0)), ("", .truncated(at: 0)),
        ]
        for (encoded, error) in refused {
            XCTAssertThrowsError(try CBORDecoder.decode(hex(encoded)), encoded) { XCTAssertEqual($0 as? CBORError, error, encoded) }
        }
        // Nesting beyond the bound: seventeen arrays of one.
        XCTAssertThrowsError(try CBORDecoder.decode(Array(repeating: 0x81, count: 17) + [0x00])) {
            XCTAssertEqual($0 as? CBORError, .tooDeep(at: 17))
        }
        XCTAssertNoThrow(try CBORDecoder.decode(Array(repeating: 0x81, count: 16) + [0x00]))
    }

    func testWhatTheFuzzerFoundIsRefusedNotACrash() throws {
        // A byte string whose declared length passed the check against an offset not yet moved past its argument.
        let found = try Fixtures.bytes("appattest", "cbor-crash-byte-string-length.bin")
        XCTAssertThrowsError(try CBORDecoder.decodePrefix(found))
        XCTAssertThrowsError(try CBORDecoder.decode([0x59, 0x00, 0x05, 0x01, 0x02, 0x03, 0x04])) { XCTAssertEqual($0 as? CBORError, .tooLong(at: 0)) }
        XCTAssertEqual(try CBORDecoder.decode([0x59, 0x00, 0x02, 0x01, 0x02]), .bytes([1, 2]))
    }

    /// `key: value` lines of each `---` document of a recording (the multi-line PEM is not needed here).
    static func documents(_ name: String) throws -> [[String: String]] {
        let text = String(decoding: try Fixtures.bytes("appattest/veehaitch", name), as: UTF8.self)
        return text.components(separatedBy: "\n---").map { document in
            var fields: [String: String] = [:]
            for line in document.split(separator: "\n") where !line.hasPrefix(" ") {
                guard let colon = line.firstIndex(of: ":") else { continue }
                fields[String(line[..<colon])] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    .trimmingCharacters(in: CharacterSet(charactersIn: "'"))
            }
            return fields
        }
    }

    static let recordings = [
        "ios-14.2.yaml", "ios-14.3-beta-2.yaml", "ios-14.3-beta-3.yaml", "ios-14.3.yaml", "ios-14.4-beta-1.yaml", "ios-14.4-beta-2.yaml",
        "ios-14.4.yaml",
    ]

    func testEveryRecordedAttestationAndAssertionReads() throws {
        for name in Self.recordings {
            let documents = try Self.documents(name)
            let attestation = try XCTUnwrap(documents.first { $0["type"] == "attestation" }, name)
            let object = try CBORDecoder.decode(Array(try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(attestation["attestationBase64"])))))
            XCTAssertEqual(object["fmt"], .text("apple-appattest"), name)
            XCTAssertEqual(object["attStmt"]?["x5c"]?.array?.count, 2, name)
            XCTAssertNotNil(object["attStmt"]?["receipt"]?.bytes, name)
            let authData = try AuthenticatorData(try XCTUnwrap(object["authData"]?.bytes))
            XCTAssertEqual(authData.counter, 0, name)
            let keyID = Array(try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(attestation["keyIdBase64"]))))
            XCTAssertEqual(authData.attestedCredential?.credentialID, keyID, name)
            XCTAssertEqual(authData.attestedCredential?.aaguid, Array("appattestdevelop".utf8), name)
            // The credential key is a COSE EC2 P-256 key: kty 2, alg -7, crv 1, x and y of 32 bytes.
            let key = try XCTUnwrap(authData.attestedCredential?.publicKey, name)
            XCTAssertEqual(key[1]?.int, 2, name)
            XCTAssertEqual(key[-1]?.int, 1, name)
            XCTAssertEqual(key[-2]?.bytes?.count, 32, name)
            XCTAssertEqual(key[-3]?.bytes?.count, 32, name)

            let assertion = try XCTUnwrap(documents.first { $0["type"] == "assertion" }, name)
            let signed = try CBORDecoder.decode(Array(try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(assertion["assertionBase64"])))))
            XCTAssertNotNil(signed["signature"]?.bytes, name)
            let assertionData = try AuthenticatorData(try XCTUnwrap(signed["authenticatorData"]?.bytes))
            XCTAssertEqual(assertionData.counter, UInt32(try XCTUnwrap(assertion["counter"])), name)
            XCTAssertEqual(assertionData.rpIDHash, authData.rpIDHash, name)
            XCTAssertNil(assertionData.attestedCredential, name)
        }
    }

    func testAuthenticatorDataTooShortOrWithABrokenCredential() {
        XCTAssertThrowsError(try AuthenticatorData(Array(repeating: 0, count: 36))) { XCTAssertEqual($0 as? AuthenticatorData.Problem, .tooShort(36)) }
        var attested = Array(repeating: UInt8(0), count: 37)
        attested[32] = AuthenticatorData.attestedCredentialFlag
        XCTAssertThrowsError(try AuthenticatorData(attested + Array(repeating: 0, count: 16) + [0x01, 0x00])) {
            XCTAssertEqual($0 as? AuthenticatorData.Problem, .credential("a credential id of 256 bytes beyond the data"))
        }
        XCTAssertThrowsError(try AuthenticatorData(attested + [0x00])) {
            XCTAssertEqual($0 as? AuthenticatorData.Problem, .credential("38 bytes, too short for an aaguid and a length"))
        }
        XCTAssertNil(try AuthenticatorData(attested).attestedCredential, "an assertion's AT flag without data")
    }
}
