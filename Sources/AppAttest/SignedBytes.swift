import Crypto
import Foundation
import HTTPServer

/// Bytes this server wrote and can recognise again on any replica: a key id, a value, and HMAC-SHA-256 of both under
/// the shared secret (`PIER_APP_ATTEST_SECRET`), with a purpose written into the MAC so that a challenge is never
/// taken for a token or the reverse. Nothing is stored to recognise them, so issuing one costs no row.
///
/// The key id (one byte derived from the secret) says which secret signed: while the operator rotates the secret,
/// what the previous one signed (`PIER_APP_ATTEST_SECRET_PREVIOUS`) is still recognised until it expires — a token
/// within its hour, a challenge within its five minutes — instead of every token ending at once.
struct SignedBytes: Sendable {
    enum Purpose: String {
        case challenge = "pier app-attest challenge v2"
        case token = "pier app-attest token v2"
    }

    /// One secret: its key id and its HMAC key.
    struct Key: Sendable {
        let id: UInt8
        let key: SymmetricKey

        init(secret: String) {
            // The secret's SHA-256 as the key: any length of secret gives a full-size key. The id is derived apart,
            // so that showing it says nothing of the key.
            key = SymmetricKey(data: SHA256.hash(data: Array(secret.utf8)))
            id = Array(SHA256.hash(data: Array("pier app-attest key id\u{0}".utf8) + Array(secret.utf8)))[0]
        }
    }

    /// Signs; recognised first.
    let current: Key
    /// Recognised only.
    let previous: Key?

    init(secret: String, previous: String? = nil) {
        current = Key(secret: secret)
        self.previous = previous.map(Key.init(secret:))
    }

    /// The key id, `value`, and the first `macBytes` of their MAC.
    func sign(_ value: [UInt8], for purpose: Purpose, macBytes: Int = 32) -> [UInt8] {
        let signed = [current.id] + value
        return signed + Self.mac(signed, purpose, current.key).prefix(macBytes)
    }

    /// The value of `signed` when its MAC (the last `macBytes`) is that of the secret its key id names, compared in
    /// constant time.
    func value(of signed: [UInt8], for purpose: Purpose, valueBytes: Int, macBytes: Int = 32) -> [UInt8]? {
        guard signed.count == 1 + valueBytes + macBytes, let id = signed.first else { return nil }
        let body = Array(signed.prefix(1 + valueBytes)), mac = Array(signed.suffix(macBytes))
        // Both keys when their ids collide (one in 256 rotations).
        for key in [current, previous].compactMap({ $0 }) where key.id == id {
            if BearerToken.constantTimeEqual(mac, Array(Self.mac(body, purpose, key.key).prefix(macBytes))) { return Array(body.dropFirst()) }
        }
        return nil
    }

    private static func mac(_ value: [UInt8], _ purpose: Purpose, _ key: SymmetricKey) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: Array(purpose.rawValue.utf8) + [0] + value, using: key))
    }

    /// `count` bytes from the system's generator: the unpredictable part of what this server issues.
    static func random(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in generator.next() }
    }

    /// Big-endian seconds since 1970.
    static func seconds(_ date: Date) -> [UInt8] {
        withUnsafeBytes(of: Int64(date.timeIntervalSince1970.rounded(.down)).bigEndian, Array.init)
    }

    static func date(_ bytes: ArraySlice<UInt8>) -> Date {
        Date(timeIntervalSince1970: TimeInterval(bytes.reduce(Int64(0)) { $0 << 8 | Int64($1) }))
    }
}
