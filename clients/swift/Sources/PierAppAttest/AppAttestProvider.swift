import Foundation

#if canImport(DeviceCheck)
import DeviceCheck
#endif

/// What the device does: Apple's `DCAppAttestService` in an app (``DeviceCheckProvider``), a device of the tests' own
/// in Pier's tests. Key ids are base64, as `generateKey` returns them.
public protocol AppAttestProvider: Sendable {
    /// False in the Simulator, on some Macs and in extensions without the entitlement.
    var isSupported: Bool { get }
    func generateKey() async throws -> String
    func attestKey(_ keyID: String, clientDataHash: Data) async throws -> Data
    func generateAssertion(_ keyID: String, clientDataHash: Data) async throws -> Data
}

/// Why the device could not do its part, as the session acts on it.
public enum AppAttestProviderError: Error, Sendable, Equatable {
    /// Apple's service could not be reached (`DCError.serverUnavailable`): try again later, with backoff.
    case serverUnavailable
    /// The key is unusable (`DCError.invalidKey`, or it was attested before): generate a new one.
    case invalidKey
    /// Anything else (`DCError.featureUnsupported`, `invalidInput`, `unknownSystemFailure`).
    case failed(String)
}

#if canImport(DeviceCheck)
/// `DCAppAttestService.shared`, its errors told apart.
@available(iOS 14.0, macOS 11.0, tvOS 15.0, watchOS 9.0, *)
public struct DeviceCheckProvider: AppAttestProvider {
    public init() {}

    public var isSupported: Bool { DCAppAttestService.shared.isSupported }

    public func generateKey() async throws -> String {
        try await Self.mapped { try await DCAppAttestService.shared.generateKey() }
    }

    public func attestKey(_ keyID: String, clientDataHash: Data) async throws -> Data {
        try await Self.mapped { try await DCAppAttestService.shared.attestKey(keyID, clientDataHash: clientDataHash) }
    }

    public func generateAssertion(_ keyID: String, clientDataHash: Data) async throws -> Data {
        try await Self.mapped { try await DCAppAttestService.shared.generateAssertion(keyID, clientDataHash: clientDataHash) }
    }

    private static func mapped<T>(_ body: () async throws -> T) async throws -> T {
        do { return try await body() } catch let error as DCError {
            switch error.code {
            case .serverUnavailable: throw AppAttestProviderError.serverUnavailable
            case .invalidKey: throw AppAttestProviderError.invalidKey
            default: throw AppAttestProviderError.failed("\(error.code)")
            }
        }
    }
}
#endif
