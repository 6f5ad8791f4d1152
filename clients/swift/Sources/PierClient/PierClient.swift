import Foundation
import HTTPTypes
import OpenAPIRuntime
import OpenAPIURLSession

/// A client for a Pier server: the generated `Client`, on URLSession, with the refresh token added to every
/// request when one is given (the generator leaves security schemes to middleware), and dates read with or without
/// milliseconds (the Next Wave routes' `lastUpdated` has them, as the functions they replaced wrote them).
public enum PierClient {
    public static func make(baseURL: URL, refreshToken: String? = nil) -> Client {
        Client(
            serverURL: baseURL, configuration: Configuration(dateTranscoder: PierDates()), transport: URLSessionTransport(),
            middlewares: refreshToken.map { [BearerToken(token: $0)] } ?? [])
    }
}

/// ISO 8601 dates with or without fractional seconds (the runtime's transcoders take one form each).
struct PierDates: DateTranscoder {
    func encode(_ date: Date) throws -> String {
        try ISO8601DateTranscoder.iso8601.encode(date)
    }

    func decode(_ text: String) throws -> Date {
        if let date = try? ISO8601DateTranscoder.iso8601.decode(text) { return date }
        return try ISO8601DateTranscoder.iso8601WithFractionalSeconds.decode(text)
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
