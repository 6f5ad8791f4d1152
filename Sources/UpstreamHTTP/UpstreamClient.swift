import Foundation
import FoundationNetworking
import Synchronization
#if canImport(FoundationNetworking)
#endif

/// Fetches upstream pages over HTTP(S) with `URLSession` (libcurl underneath on Linux).
///
/// Every request is bounded: a timeout for the whole exchange, a cap on the decoded body (the transfer is
/// cancelled as soon as it is passed), and a redirect limit. gzip and deflate are accepted and decoded.
/// Task cancellation cancels the transfer.
public final class UpstreamClient: Sendable {
    public struct Configuration: Sendable {
        /// The whole request, connect to last byte.
        public var timeout: Duration = .seconds(20)
        public var maximumBodyBytes = 32 << 20
        public var maximumRedirects = 3
        /// Where a request for a URL really goes: the identity, except when recordings stand in for the
        /// upstreams (`--demo`, `--replay`), which serve each upstream under its host on loopback. Errors and
        /// captures keep the URL asked for, so a capture made while replaying replays again.
        public var route: @Sendable (String) -> String = { $0 }

        public init(
            timeout: Duration = .seconds(20), maximumBodyBytes: Int = 32 << 20, maximumRedirects: Int = 3,
            route: @escaping @Sendable (String) -> String = { $0 }
        ) {
            self.timeout = timeout
            self.maximumBodyBytes = maximumBodyBytes
            self.maximumRedirects = maximumRedirects
            self.route = route
        }
    }

    public let configuration: Configuration
    private let session: URLSession
    private let transfers: Transfers

    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        let transfers = Transfers(configuration: configuration)
        self.transfers = transfers
        let seconds = Double(configuration.timeout.components.seconds)
            + Double(configuration.timeout.components.attoseconds) / 1e18
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.timeoutIntervalForRequest = seconds
        sessionConfiguration.timeoutIntervalForResource = seconds
        sessionConfiguration.httpCookieAcceptPolicy = .never
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        session = URLSession(configuration: sessionConfiguration, delegate: transfers, delegateQueue: nil)
    }

    deinit {
        session.invalidateAndCancel()
    }

    /// `GET url` with extra request headers; a non-2xx answer is ``UpstreamError/status(_:url:)`` unless its
    /// status is in `accepting` (for upstreams that explain errors in the body, like FMI's 400 ExceptionReport).
    /// - Parameter credentials: headers that carry a key of the caller's own scheme (beyond `Authorization`), sent
    ///   like `headers` and dropped, like it, on a redirect to another origin.
    public func get(
        _ url: String, headers: [String: String] = [:], credentials: [String: String] = [:], accepting: Set<Int> = []
    ) async throws(UpstreamError) -> UpstreamResponse {
        try await send("GET", url, headers: headers, credentials: credentials, body: nil, accepting: accepting, capturing: true)
    }

    /// `POST url` with `body`, as ``get(_:headers:accepting:)``. `capturing` false: the exchange is never captured, not
    /// even when a fetch fails (``UpstreamCapture``) — for a body that is a user's own text, which nothing may keep.
    public func post(
        _ url: String, body: [UInt8], headers: [String: String] = [:], credentials: [String: String] = [:], accepting: Set<Int> = [],
        capturing: Bool = true
    ) async throws(UpstreamError) -> UpstreamResponse {
        try await send("POST", url, headers: headers, credentials: credentials, body: body, accepting: accepting, capturing: capturing)
    }

    private func send(
        _ method: String, _ url: String, headers: [String: String], credentials: [String: String], body: [UInt8]?, accepting: Set<Int>,
        capturing: Bool
    ) async throws(UpstreamError) -> UpstreamResponse {
        guard let target = URL(string: configuration.route(url)), let scheme = target.scheme?.lowercased(), scheme == "http" || scheme == "https",
            target.host != nil
        else { throw .invalidURL(URLRedaction.redact(url)) }
        var request = URLRequest(url: target)
        request.httpMethod = method
        for (name, value) in headers.merging(credentials, uniquingKeysWith: { $1 }) { request.setValue(value, forHTTPHeaderField: name) }
        if let body { request.httpBody = Data(body) }
        let task = session.dataTask(with: request)
        let capture = capturing ? UpstreamCapture.current : nil
        let result: Result<UpstreamResponse, UpstreamError> = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                // Errors and captures name the URL without its secrets.
                transfers.begin(
                    task, url: URLRedaction.redact(url), credentials: Array(credentials.keys), accepting: accepting, capture: capture,
                    continuation: continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
        return try result.get()
    }
}

/// The state of every transfer in flight, keyed by task, fed by `URLSession`'s delegate callbacks.
private final class Transfers: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct Transfer {
        var url: String
        var continuation: CheckedContinuation<Result<UpstreamResponse, UpstreamError>, Never>
        var body: [UInt8] = []
        var redirects = 0
        var failure: UpstreamError?
        var accepted: Set<Int> = []
        var capture: UpstreamCapture?
        /// The caller's own credential headers (``UpstreamClient/get(_:headers:credentials:accepting:)``).
        var credentials: [String] = []
    }

    private let configuration: UpstreamClient.Configuration
    private let transfers = Mutex<[Int: Transfer]>([:])

    init(configuration: UpstreamClient.Configuration) {
        self.configuration = configuration
    }

    func begin(
        _ task: URLSessionTask, url: String, credentials: [String], accepting: Set<Int>, capture: UpstreamCapture?,
        continuation: CheckedContinuation<Result<UpstreamResponse, UpstreamError>, Never>
    ) {
        transfers.withLock {
            $0[task.taskIdentifier] = Transfer(url: url, continuation: continuation, accepted: accepting, capture: capture, credentials: credentials)
        }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        // A declared length over the cap is refused before any body is read.
        let tooLarge = response.expectedContentLength > Int64(configuration.maximumBodyBytes)
        if tooLarge { fail(dataTask, with: { .tooLarge(limit: self.configuration.maximumBodyBytes, url: $0) }) }
        completionHandler(tooLarge ? .cancel : .allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let overflow = transfers.withLock { transfers -> Bool in
            guard var transfer = transfers[dataTask.taskIdentifier], transfer.failure == nil else { return false }
            guard transfer.body.count + data.count <= configuration.maximumBodyBytes else {
                transfer.failure = .tooLarge(limit: configuration.maximumBodyBytes, url: transfer.url)
                transfers[dataTask.taskIdentifier] = transfer
                return true
            }
            transfer.body.append(contentsOf: data)
            transfers[dataTask.taskIdentifier] = transfer
            return false
        }
        if overflow { dataTask.cancel() }
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        let allowed = transfers.withLock { transfers -> [String]? in
            guard var transfer = transfers[task.taskIdentifier] else { return nil }
            transfer.redirects += 1
            if transfer.redirects > configuration.maximumRedirects {
                transfer.failure = .tooManyRedirects(limit: configuration.maximumRedirects, url: transfer.url)
            }
            transfers[task.taskIdentifier] = transfer
            return transfer.failure == nil ? transfer.credentials : nil
        }
        completionHandler(allowed.map { Self.withoutCredentials(request, $0, unlessSameOriginAs: task.originalRequest?.url) })
    }

    /// A redirect to another origin (scheme, host or port) is followed without the credentials the first request
    /// carried (`Authorization`, `Cookie`, `Proxy-Authorization` and the caller's own `credentials`): a key is for the
    /// upstream it was given to, not for wherever that upstream points.
    static func withoutCredentials(_ request: URLRequest, _ credentials: [String], unlessSameOriginAs original: URL?) -> URLRequest {
        guard let target = request.url, let original,
            target.scheme?.lowercased() != original.scheme?.lowercased() || target.host?.lowercased() != original.host?.lowercased()
                || target.port != original.port
        else { return request }
        var stripped = request
        for name in ["Authorization", "Cookie", "Proxy-Authorization"] + credentials { stripped.setValue(nil, forHTTPHeaderField: name) }
        return stripped
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let transfer = transfers.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        let result = Self.result(of: transfer, task: task, error: error)
        if let capture = transfer.capture {
            // Whatever came, failures included: a broken answer is what a capture is for.
            let response = task.response as? HTTPURLResponse
            var headers: [String: String] = [:]
            for (name, value) in response?.allHeaderFields ?? [:] { headers["\(name)"] = "\(value)" }
            let failure: String? = if case let .failure(problem) = result { "\(problem)" } else { nil }
            capture.record(url: transfer.url, status: response?.statusCode, headers: headers, body: transfer.body, error: failure)
        }
        transfer.continuation.resume(returning: result)
    }

    private func fail(_ task: URLSessionTask, with failure: @escaping (String) -> UpstreamError) {
        transfers.withLock { transfers in
            guard var transfer = transfers[task.taskIdentifier] else { return }
            transfer.failure = failure(transfer.url)
            transfers[task.taskIdentifier] = transfer
        }
    }

    private static func result(of transfer: Transfer, task: URLSessionTask, error: (any Error)?) -> Result<UpstreamResponse, UpstreamError> {
        if let failure = transfer.failure { return .failure(failure) }
        if let error {
            let code = (error as? URLError)?.code
            switch code {
            case .timedOut?: return .failure(.timedOut(url: transfer.url))
            case .cancelled?: return .failure(.cancelled(url: transfer.url))
            default: return .failure(.transport(error.localizedDescription, url: transfer.url))
            }
        }
        guard let response = task.response as? HTTPURLResponse else {
            return .failure(.transport("no HTTP response", url: transfer.url))
        }
        guard (200..<300).contains(response.statusCode) || transfer.accepted.contains(response.statusCode) else {
            return .failure(.status(response.statusCode, url: transfer.url))
        }
        var headers: [String: String] = [:]
        for (name, value) in response.allHeaderFields { headers["\(name)".lowercased()] = "\(value)" }
        return .success(
            UpstreamResponse(
                status: response.statusCode, body: transfer.body,
                contentType: response.value(forHTTPHeaderField: "Content-Type"), headers: headers))
    }
}
