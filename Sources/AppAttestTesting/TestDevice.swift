import AppAttest
import CBOR
import Crypto
import Foundation

/// One app instance's App Attest key, as a test plays it: it attests its key through a ``TestAttestationAuthority``
/// and signs assertions with a counter it raises, exactly in the shapes a device sends. Fields can be changed to
/// see each check refuse. Never linked into the executable.
public struct TestDevice: Sendable {
    public let key: P256.Signing.PrivateKey
    public let app: String
    public let environment: AppAttestEnvironment
    public private(set) var counter: UInt32 = 0

    public init(app: String, environment: AppAttestEnvironment = .development) {
        key = P256.Signing.PrivateKey()
        self.app = app
        self.environment = environment
    }

    /// SHA-256 of the public key (X9.63): what `DCAppAttestService.generateKey` returns, as the key's id.
    public var keyID: [UInt8] { Array(SHA256.hash(data: key.publicKey.x963Representation)) }

    /// The attestation object for `clientData` (the server's challenge bytes): what `attestKey` returns, given
    /// SHA-256 of them. The other parameters change what a device writes (a test of each check); `x5c` what it sends
    /// as the chain (the credential certificate and the intermediate, DER).
    public func attestation(
        clientData: [UInt8], authority: TestAttestationAuthority, counter: UInt32 = 0, aaguid: [UInt8]? = nil, credentialID: [UInt8]? = nil,
        rpID: String? = nil, format: String = "apple-appattest", x5c: ([[UInt8]]) -> [[UInt8]] = { $0 }
    ) throws -> [UInt8] {
        try attestation(
            clientDataHash: Array(SHA256.hash(data: clientData)), authority: authority, counter: counter, aaguid: aaguid, credentialID: credentialID,
            rpID: rpID, format: format, x5c: x5c)
    }

    /// The attestation object for `clientDataHash`, exactly what `attestKey(_:clientDataHash:)` is given.
    public func attestation(
        clientDataHash: [UInt8], authority: TestAttestationAuthority, counter: UInt32 = 0, aaguid: [UInt8]? = nil, credentialID: [UInt8]? = nil,
        rpID: String? = nil, format: String = "apple-appattest", x5c: ([[UInt8]]) -> [[UInt8]] = { $0 }
    ) throws -> [UInt8] {
        let id = credentialID ?? keyID
        let point = key.publicKey.x963Representation
        let coseKey = CBOREncoder.encode(.map([
            (.unsigned(1), .unsigned(2)), (.unsigned(3), .negative(6)), (.negative(0), .unsigned(1)),
            (.negative(1), .bytes(Array(point[1..<33]))), (.negative(2), .bytes(Array(point[33..<65]))),
        ]))
        let authData = Self.header(rpID: rpID ?? app, flags: 0x41, counter: counter) + (aaguid ?? environment.aaguid)
            + [UInt8(id.count >> 8), UInt8(id.count & 0xFF)] + id + coseKey
        let nonce = Array(SHA256.hash(data: authData + clientDataHash))
        let chain = x5c(try authority.chain(for: key.publicKey, nonce: nonce))
        return CBOREncoder.encode(.map([
            (.text("fmt"), .text(format)),
            (.text("attStmt"), .map([(.text("x5c"), .array(chain.map { .bytes($0) })), (.text("receipt"), .bytes(Array("test receipt".utf8)))])),
            (.text("authData"), .bytes(authData)),
        ]))
    }

    /// The next assertion for `clientData`: the counter raised by one (or set to `counter`), signed as the Secure
    /// Enclave signs (ECDSA P-256 with SHA-256 over SHA-256(authenticatorData ‖ SHA-256(clientData))).
    public mutating func assertion(clientData: [UInt8], counter: UInt32? = nil, rpID: String? = nil) throws -> [UInt8] {
        try assertion(clientDataHash: Array(SHA256.hash(data: clientData)), counter: counter, rpID: rpID)
    }

    /// The next assertion for `clientDataHash`, exactly what `generateAssertion(_:clientDataHash:)` is given.
    public mutating func assertion(clientDataHash: [UInt8], counter: UInt32? = nil, rpID: String? = nil) throws -> [UInt8] {
        self.counter = counter ?? self.counter + 1
        let authData = Self.header(rpID: rpID ?? app, flags: 0x01, counter: self.counter)
        let nonce = Data(SHA256.hash(data: authData + clientDataHash))
        let signature = try key.signature(for: nonce).derRepresentation
        return CBOREncoder.encode(.map([(.text("signature"), .bytes(Array(signature))), (.text("authenticatorData"), .bytes(authData))]))
    }

    private static func header(rpID: String, flags: UInt8, counter: UInt32) -> [UInt8] {
        Array(SHA256.hash(data: Array(rpID.utf8))) + [flags] + withUnsafeBytes(of: counter.bigEndian, Array.init)
    }
}
