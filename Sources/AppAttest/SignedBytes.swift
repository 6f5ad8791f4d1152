import Crypto
import Foundation
import HTTPServer

/// Bytes this server wrote and can recognise again on any replica: a value followed by HMAC-SHA-256 under the shared
/// secret (`PIER_APP_ATTEST_SECRET`), with a purpose written into the MAC so that a challenge is never taken for a token
/// or the reverse. Nothing is stored to recognise them, so issuing one costs no row.
struct SignedBytes: Sendable {
    enum Purpose: String {
        case challenge = "pier app-attest challenge v1"
        case token = "pier app-attest token v1"
    }

    private let key: SymmetricKey

    init(secret: String) {
        // The secret's SHA-256 as the key: any length of secret gives a full-size key.
        key = SymmetricKey(data: SHA256.hash(data: Array(secret.utf8)))
    }

    /// `value` followed by the first `macBytes` of its MAC.
    func sign(_ value: [UInt8], for purpose: Purpose, macBytes: Int = 32) -> [UInt8] {
        value + mac(value, purpose).prefix(macBytes)
    }

    /// The value of `signed` when its MAC (the last `macBytes`) is this server's, compared in constant time.
    func value(of signed: [UInt8], for purpose: Purpose, valueBytes: Int, macBytes: Int = 32) -> [UInt8]? {
        guard signed.count == valueBytes + macBytes else { return nil }
        let value = Array(signed.prefix(valueBytes))
        return BearerToken.constantTimeEqual(Array(signed.suffix(macBytes)), Array(mac(value, purpose).prefix(macBytes))) ? value : nil
    }

    private func mac(_ value: [UInt8], _ purpose: Purpose) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Array(purpose.rawValue.utf8) + [0] + value, using: key))
    }

    /// Big-endian seconds since 1970.
    static func seconds(_ date: Date) -> [UInt8] {
        withUnsafeBytes(of: Int64(date.timeIntervalSince1970.rounded(.down)).bigEndian, Array.init)
    }

    static func date(_ bytes: ArraySlice<UInt8>) -> Date {
        Date(timeIntervalSince1970: TimeInterval(bytes.reduce(Int64(0)) { $0 << 8 | Int64($1) }))
    }
}
