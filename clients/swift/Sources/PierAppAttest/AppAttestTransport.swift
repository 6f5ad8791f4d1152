import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How the session posts JSON to Pier (URLSession in an app; anything in a test).
public protocol AppAttestTransport: Sendable {
    /// The status, the body and the `Retry-After` seconds, if any.
    func post(_ url: URL, json: Data) async throws -> (status: Int, body: Data, retryAfter: Int?)
}

/// `URLSession.shared`.
public struct URLSessionAppAttestTransport: AppAttestTransport {
    public init() {}

    public func post(_ url: URL, json: Data) async throws -> (status: Int, body: Data, retryAfter: Int?) {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = json
        let (body, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        return (http?.statusCode ?? 0, body, http?.value(forHTTPHeaderField: "Retry-After").flatMap { Int($0) })
    }
}
