import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession

/// A client for a Pier server: the generated `Client`, on URLSession, with the refresh token added to every
/// request when one is given (the generator leaves security schemes to middleware).
public enum PierClient {
    public static func make(baseURL: URL, refreshToken: String? = nil) -> Client {
        Client(
            serverURL: baseURL, transport: URLSessionTransport(),
            middlewares: refreshToken.map { [BearerToken(token: $0)] } ?? [])
    }
}

/// Adds `Authorization: Bearer <token>`.
struct BearerToken: ClientMiddleware {
    let token: String

    func intercept(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return try await next(request, body, baseURL)
    }
}
