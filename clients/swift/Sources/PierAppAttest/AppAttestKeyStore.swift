import Foundation

#if canImport(Security)
import Security
#endif

/// Where the app keeps its App Attest key id and whether Pier registered it: once per install, so it survives
/// launches (the keychain in an app; memory in tests).
public protocol AppAttestKeyStore: Sendable {
    func load() -> AppAttestKey?
    func save(_ key: AppAttestKey?)
}

/// The key id (base64, as `generateKey` returned it) and whether Pier has registered it.
public struct AppAttestKey: Codable, Sendable, Equatable {
    public var id: String
    public var registered: Bool

    public init(id: String, registered: Bool) {
        self.id = id
        self.registered = registered
    }
}

/// A key store in memory (tests, and apps that want a new key per launch).
public final class MemoryKeyStore: AppAttestKeyStore, @unchecked Sendable {
    private let lock = NSLock()
    private var key: AppAttestKey?

    public init(_ key: AppAttestKey? = nil) {
        self.key = key
    }

    public func load() -> AppAttestKey? {
        lock.lock()
        defer { lock.unlock() }
        return key
    }

    public func save(_ key: AppAttestKey?) {
        lock.lock()
        defer { lock.unlock() }
        self.key = key
    }
}

#if canImport(Security)
/// The key in the keychain: a generic password of this service, readable after the first unlock and never moved to
/// another device (a key id means nothing on another device).
public struct KeychainKeyStore: AppAttestKeyStore {
    public let service: String

    public init(service: String = "pier.app-attest") {
        self.service = service
    }

    private var query: [String: Any] {
        [kSecClass as String: kSecClassGenericPassword, kSecAttrService as String: service, kSecAttrAccount as String: "key"]
    }

    public func load() -> AppAttestKey? {
        var item: CFTypeRef?
        var search = query
        search[kSecReturnData as String] = true
        search[kSecMatchLimit as String] = kSecMatchLimitOne
        guard SecItemCopyMatching(search as CFDictionary, &item) == errSecSuccess, let data = item as? Data else { return nil }
        return try? JSONDecoder().decode(AppAttestKey.self, from: data)
    }

    public func save(_ key: AppAttestKey?) {
        SecItemDelete(query as CFDictionary)
        guard let key, let data = try? JSONEncoder().encode(key) else { return }
        var item = query
        item[kSecValueData as String] = data
        item[kSecAttrAccessible as String] = kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        SecItemAdd(item as CFDictionary, nil)
    }
}
#endif
