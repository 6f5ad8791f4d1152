import ArgumentParser
import Basics
import Crypto
import Feature
import FeatureCommands
import Foundation
import Logging

/// `pier app-attest`: an operator's tools for App Attest — revoke a device, and verify a recorded attestation or
/// assertion exactly as the routes do (docs/apps.md).
struct AppAttestCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-attest",
        abstract: "Revoke App Attest devices and verify recorded attestations and assertions.",
        subcommands: [Revoke.self, DebugToken.self, VerifyAttestation.self, VerifyAssertion.self])

    /// `pier app-attest revoke KEYID`: the device's tokens are refused by every replica at once.
    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke a device: its tokens are refused and it gets no new ones.",
            discussion: "KEYID is the key id in base64 (as the app sends it) or hex. Environment: DATABASE_URL.")

        @Argument(help: "The device's key id (base64 or 64 hex digits).")
        var keyID: String

        func run() throws {
            guard let key = AppAttestCommand.keyID(keyID) else { throw ValidationError("KEYID must be 32 bytes in base64 or hex") }
            try AppAttestCommand.withStore(announcing: true) { store in
                guard try await store.revoke(key) else {
                    print("no device is registered with this key id")
                    throw ExitCode.failure
                }
                print("revoked")
            }
        }
    }

    /// `pier app-attest debug-token create|list|revoke`: debug devices for the Simulator, CI and app extensions.
    struct DebugToken: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "debug-token",
            abstract: "Name, list and revoke debug devices (served only with PIER_APP_ATTEST_DEBUG=on).",
            subcommands: [Create.self, List.self, RevokeName.self])

        static let nameHelp: ArgumentHelp = "The debug device's name: 1 to 64 letters, digits, '.', '_' or '-' (shown in metrics as debug/NAME)."

        static func validated(_ name: String) throws -> String {
            guard ClientGroup.isDebugName(name) else { throw ValidationError("NAME must be 1 to 64 letters, digits, '.', '_' or '-'") }
            return name
        }

        struct Create: ParsableCommand {
            static let configuration = CommandConfiguration(
                abstract: "Create a debug device and print its token once (only its hash is stored).",
                discussion: "The app sends the token to POST /v1/app-attest/debug. Environment: DATABASE_URL.")

            @Argument(help: DebugToken.nameHelp) var name: String

            func run() throws {
                let name = try DebugToken.validated(name)
                let token = AppAttest.DebugToken.make()
                try AppAttestCommand.withStore(announcing: true) { store in
                    guard try await store.createDebugDevice(name, tokenHash: AppAttest.DebugToken.hash(of: token)) else {
                        throw ValidationError("a debug device named \(name) exists or existed (names are not reused): choose another")
                    }
                }
                print(token)
            }
        }

        struct List: ParsableCommand {
            static let configuration = CommandConfiguration(abstract: "List the debug devices: name, created, revoked (never a token).")

            func run() throws {
                try AppAttestCommand.withStore(announcing: false) { store in
                    let format = Date.ISO8601FormatStyle()
                    for device in try await store.debugDevices() {
                        print([device.name, device.created.formatted(format), device.revoked.map { "revoked \($0.formatted(format))" } ?? "active"].joined(separator: "\t"))
                    }
                }
            }
        }

        struct RevokeName: ParsableCommand {
            static let configuration = CommandConfiguration(
                commandName: "revoke", abstract: "Revoke a debug device: every replica refuses its token and the tokens it got at once.")

            @Argument(help: DebugToken.nameHelp) var name: String

            func run() throws {
                let name = try DebugToken.validated(name)
                try AppAttestCommand.withStore(announcing: true) { store in
                    guard try await store.revokeDebugDevice(name) else {
                        print("no debug device is named \(name)")
                        throw ExitCode.failure
                    }
                    print("revoked")
                }
            }
        }
    }

    /// Runs `body` with the store of a migrated database; `announcing`: then tells running `pier serve` processes to
    /// reload the revoked devices and the debug devices (the change feed).
    static func withStore(announcing: Bool, _ body: @escaping @Sendable (AppAttestStore) async throws -> Void) throws {
        try Commands.current.withDatabase(announcing: announcing ? AppAttestFeature.topic : nil) { pool in
            try await body(AppAttestStore(pool: pool))
        }
    }

    /// Verifies `{"keyId", "attestation", "clientData"}` from standard input.
    struct VerifyAttestation: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify an attestation read as JSON on standard input: {\"keyId\", \"attestation\", \"clientData\"} (base64).",
            discussion: "Prints {\"ok\": true, \"publicKey\", \"environment\", \"counter\"} or {\"ok\": false, \"reason\"}; exit 0 or 1.")

        @Option(help: "The app id, TEAMID.bundle.id.") var app: String
        @Option(help: "production or development.") var environment: String
        @Option(help: "Check the certificates at this instant (ISO 8601) instead of now: a recorded attestation replayed.") var at: String?

        func run() throws {
            guard let environment = AppAttestEnvironment(rawValue: environment) else { throw ValidationError("--environment is production or development") }
            let instant = try at.map { text in
                guard let date = try? Date(text, strategy: Date.ISO8601FormatStyle(includingFractionalSeconds: text.contains("."))) else {
                    throw ValidationError("--at must be an ISO 8601 instant (2021-01-13T12:00:00Z)")
                }
                return date
            }
            let fields = try AppAttestCommand.input(["keyId", "attestation", "clientData"])
            let app = self.app
            let result: Result<AttestationVerifier.Verified, AppAttestFailure> = try runBlocking {
                do {
                    return .success(try await AttestationVerifier(roots: [try AttestationVerifier.appleRoot()]).verify(
                        attestation: fields[1], keyID: fields[0], clientDataHash: Array(SHA256.hash(data: fields[2])), apps: [app],
                        environments: [environment], at: instant))
                } catch let failure as AppAttestFailure {
                    return .failure(failure)
                }
            }
            switch result {
            case .success(let verified):
                AppAttestCommand.printJSON([
                    "ok": true, "publicKey": verified.publicKeyPEM, "environment": verified.environment.rawValue, "counter": Int(verified.counter),
                ])
            case .failure(let failure):
                AppAttestCommand.printJSON(["ok": false, "reason": failure.description])
                throw ExitCode.failure
            }
        }
    }

    /// Verifies `{"assertion", "clientData"}` from standard input with a stored public key.
    struct VerifyAssertion: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Verify an assertion read as JSON on standard input: {\"assertion\", \"clientData\"} (base64).",
            discussion: "Prints {\"ok\": true, \"counter\"} or {\"ok\": false, \"reason\"}; exit 0 or 1.")

        @Option(help: "The app id, TEAMID.bundle.id.") var app: String
        @Option(help: "The device's public key, PEM (as verify-attestation printed it).") var publicKeyFile: String
        @Option(help: "The counter of the last assertion accepted (0 after the attestation).") var previousCounter: UInt32 = 0

        func run() throws {
            guard let pem = try? String(contentsOfFile: publicKeyFile, encoding: .utf8), let key = try? P256.Signing.PublicKey(pemRepresentation: pem) else {
                throw ValidationError("--public-key-file must name a PEM P-256 public key")
            }
            let fields = try AppAttestCommand.input(["assertion", "clientData"])
            do {
                let counter = try AssertionVerifier.verify(
                    assertion: fields[0], clientData: fields[1], publicKey: Array(key.x963Representation), appID: app, previousCounter: previousCounter)
                AppAttestCommand.printJSON(["ok": true, "counter": Int(counter)])
            } catch {
                AppAttestCommand.printJSON(["ok": false, "reason": "\(error)"])
                throw ExitCode.failure
            }
        }
    }

    /// The base64 members `names` of the JSON object on standard input.
    static func input(_ names: [String]) throws -> [[UInt8]] {
        do { return try Base64Members.decode(Array(FileHandle.standardInput.readDataToEndOfFile()), names) } catch {
            throw ValidationError("standard input: \(error)")
        }
    }

    /// A key id in base64 or hex.
    static func keyID(_ text: String) -> [UInt8]? {
        if text.count == 64, text.allSatisfy(\.isHexDigit) {
            var bytes: [UInt8] = []
            var index = text.startIndex
            while index < text.endIndex {
                let next = text.index(index, offsetBy: 2)
                guard let byte = UInt8(text[index..<next], radix: 16) else { return nil }
                bytes.append(byte)
                index = next
            }
            return bytes
        }
        guard let data = Data(base64Encoded: text), data.count == 32 else { return nil }
        return Array(data)
    }

    static func printJSON(_ object: [String: Any]) {
        if let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) {
            Swift.print(String(decoding: data, as: UTF8.self))
        }
    }
}
