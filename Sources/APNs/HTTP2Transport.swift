import CCurl
import Foundation
import Synchronization

/// POSTs over HTTP/2 with libcurl's multi interface, on a thread of its own: one connection per origin, kept open
/// between requests, every request a stream on it (libcurl waits for a free stream rather than opening a second
/// connection, and honours the streams the server allows — APNs starts at one and raises it after the first success).
///
/// Why libcurl and not `URLSession`: on Linux `URLSession` opens HTTP/2 only by chance and gives no say over
/// multiplexing or the number of connections, which APNs asks providers to keep few and open.
public final class HTTP2Transport: Sendable {
    public struct Request: Sendable {
        public var url: String
        /// `name: value` lines.
        public var headers: [String]
        public var body: [UInt8]

        public init(url: String, headers: [String], body: [UInt8]) {
            self.url = url
            self.headers = headers
            self.body = body
        }
    }

    public struct Response: Sendable, Equatable {
        public var status: Int
        /// Names in lower case (HTTP/2 sends them so).
        public var headers: [String: String]
        public var body: [UInt8]
    }

    public enum Failure: Error, Equatable, Sendable {
        /// libcurl's code and its words (no URL: a device token is part of APNs' paths).
        case transport(code: Int, message: String)
        /// The server did not speak HTTP/2 (ALPN chose HTTP/1.1).
        case notHTTP2
        case stopped
    }

    public struct Configuration: Sendable {
        /// The whole exchange of one request, queueing for a stream included.
        public var timeout: Duration = .seconds(30)
        /// Extra trusted certificates (PEM): only the test stand-in's, never in production.
        public var caFile: String?
        /// The most streams used on one connection, whatever the server allows.
        public var maximumStreams = 1000
        /// A connection idle longer than this is closed rather than reused (libcurl's default, 118 s, would make a
        /// provider that sends a few times an hour reconnect for every warning).
        public var maximumIdle: Duration = .seconds(3600)
        /// Response bodies (APNs' error documents are a few dozen bytes).
        public var maximumBodyBytes = 64 << 10

        public init(timeout: Duration = .seconds(30), caFile: String? = nil, maximumStreams: Int = 1000, maximumIdle: Duration = .seconds(3600)) {
            self.timeout = timeout
            self.caFile = caFile
            self.maximumStreams = maximumStreams
            self.maximumIdle = maximumIdle
        }
    }

    private let loop: CurlLoop

    public init(configuration: Configuration = Configuration()) {
        loop = CurlLoop(configuration: configuration)
        let loop = self.loop
        let thread = Thread { loop.run() }
        thread.name = "pier-http2"
        thread.start()
    }

    deinit {
        loop.stop()
    }

    /// POSTs every one of `requests` at once, in as many streams as the server allows; their answers (whatever their
    /// status) or why there is none, in the same order. One hand-over and one wake-up of the loop for the lot: handed
    /// over one by one, each request woke the loop for a pass over every transfer under way.
    public func post(_ requests: [Request]) async -> [Result<Response, Failure>] {
        guard !requests.isEmpty else { return [] }
        return await withCheckedContinuation { continuation in
            let answers = Answers(count: requests.count, continuation: continuation)
            loop.submit(requests) { index, result in answers.set(index, result) }
        }
    }

    /// Finishes the transfers under way, then closes the connections; later requests fail with ``Failure/stopped``.
    public func stop() {
        loop.stop()
    }
}

/// The multi handle and the transfers on it. Only its thread touches libcurl; other threads hand it requests through
/// `queue` and wake it with `curl_multi_wakeup` (the one multi call that is safe from any thread).
private final class CurlLoop: @unchecked Sendable {
    /// Hears the answer to the request at an index of what was submitted together; called once, on the loop's thread
    /// (or on the submitting one when the loop has stopped).
    typealias Completion = @Sendable (Int, Result<HTTP2Transport.Response, HTTP2Transport.Failure>) -> Void

    struct Pending {
        var request: HTTP2Transport.Request
        var index: Int
        var completion: Completion

        func finish(_ result: Result<HTTP2Transport.Response, HTTP2Transport.Failure>) {
            completion(index, result)
        }
    }

    private struct Queue {
        var requests: [Pending] = []
        var stopping = false
        var stopped = false
    }

    private let configuration: HTTP2Transport.Configuration
    private let queue = Mutex(Queue())
    private let multi: UnsafeMutableRawPointer?
    // The loop thread's own.
    private var transfers: [UnsafeMutableRawPointer: CurlTransfer] = [:]
    private var idleHandles: [UnsafeMutableRawPointer] = []
    /// Requests waiting for their origin's first answer: until a connection has answered once, one request at a time
    /// goes to it. A server that starts with one stream (APNs does) would otherwise see the streams libcurl opens
    /// before the server's settings arrive; after the first answer the server's own limit holds.
    private var waiting: [Pending] = []
    private var warm: Set<String> = []
    /// Streams under way above which answers gather before a pass, for how long, and when: if the last pass finished
    /// fewer than 1 in `trickle` of the streams under way.
    static let gatherAbove = 64
    static let trickle = 16
    static let gatherMicroseconds: UInt32 = 10000
    private var active: [String: Int] = [:]

    init(configuration: HTTP2Transport.Configuration) {
        self.configuration = configuration
        CurlGlobal.initialise()
        multi = curl_multi_init()
        if let multi {
            _ = pier_curl_multi_setopt_long(multi, CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
            _ = pier_curl_multi_setopt_long(multi, CURLMOPT_MAX_HOST_CONNECTIONS, 1)
            _ = pier_curl_multi_setopt_long(multi, CURLMOPT_MAX_CONCURRENT_STREAMS, configuration.maximumStreams)
        }
    }

    func submit(_ requests: [HTTP2Transport.Request], completion: @escaping Completion) {
        let pending = requests.enumerated().map { Pending(request: $0.element, index: $0.offset, completion: completion) }
        let accepted = queue.withLock { queue -> Bool in
            guard !queue.stopping else { return false }
            queue.requests.append(contentsOf: pending)
            return true
        }
        guard accepted else { return pending.forEach { $0.finish(.failure(.stopped)) } }
        if let multi { curl_multi_wakeup(multi) }
    }

    func stop() {
        let wake = queue.withLock { queue -> Bool in
            defer { queue.stopping = true }
            return !queue.stopping
        }
        if wake, let multi { curl_multi_wakeup(multi) }
    }

    func run() {
        guard let multi else {
            failEverything(with: .transport(code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "curl_multi_init failed"))
            return
        }
        while true {
            let (requests, stopping) = queue.withLock { queue in
                defer { queue.requests.removeAll(keepingCapacity: true) }
                return (queue.requests, queue.stopping)
            }
            waiting.append(contentsOf: requests)
            startWaiting(on: multi)
            if stopping && transfers.isEmpty { break }
            var running: Int32 = 0
            curl_multi_perform(multi, &running)
            let before = transfers.count
            collectFinished(on: multi)
            let finished = before - transfers.count
            startWaiting(on: multi)
            if transfers.isEmpty && queue.withLock({ $0.stopping && $0.requests.isEmpty }) { break }
            curl_multi_poll(multi, nil, 0, 1000, nil)
            // libcurl 7.88 visits every transfer on each pass (a poll of the shared socket for each), so with many
            // streams under way and answers trickling in (a distant server), a pass per answer costs the number of
            // streams per push. Then answers gather for a moment first, so each pass serves several (a few
            // milliseconds are nothing to a push). When the last pass finished many, the server answers as fast as
            // we ask and the next pass goes at once: waiting then only slows a burst down.
            if transfers.count >= Self.gatherAbove && finished * Self.trickle < transfers.count { usleep(Self.gatherMicroseconds) }
        }
        for handle in idleHandles { curl_easy_cleanup(handle) }
        idleHandles.removeAll()
        curl_multi_cleanup(multi)
        failEverything(with: .stopped)
    }

    /// Requests that arrived after the loop ended.
    private func failEverything(with failure: HTTP2Transport.Failure) {
        let left = queue.withLock { queue in
            queue.stopping = true
            queue.stopped = true
            defer { queue.requests.removeAll() }
            return queue.requests
        }
        for pending in left { pending.finish(.failure(failure)) }
    }

    /// Starts what may go: every request to a warm origin, the first one to a cold one.
    private func startWaiting(on multi: UnsafeMutableRawPointer) {
        guard !waiting.isEmpty else { return }
        var still: [Pending] = []
        for entry in waiting {
            let origin = Self.origin(of: entry.request.url)
            if warm.contains(origin) || active[origin, default: 0] == 0 {
                active[origin, default: 0] += 1
                start(entry, on: multi)
            } else {
                still.append(entry)
            }
        }
        waiting = still
    }

    /// `https://host:port` of a URL.
    static func origin(of url: String) -> String {
        guard let scheme = url.range(of: "://") else { return url }
        let rest = url[scheme.upperBound...]
        return String(url[..<(rest.firstIndex(of: "/") ?? url.endIndex)])
    }

    private func start(_ pending: Pending, on multi: UnsafeMutableRawPointer) {
        let request = pending.request
        guard let handle = idleHandles.popLast() ?? curl_easy_init() else {
            return pending.finish(.failure(.transport(code: Int(CURLE_OUT_OF_MEMORY.rawValue), message: "curl_easy_init failed")))
        }
        let transfer = CurlTransfer(pending: pending, maximumBodyBytes: configuration.maximumBodyBytes, origin: Self.origin(of: request.url))
        transfer.headerList = request.headers.reduce(nil) { list, line in curl_slist_append(list, line) }
        // No `Expect: 100-continue` (an HTTP/1.1 habit) and libcurl's own content type left out.
        transfer.headerList = curl_slist_append(transfer.headerList, "Expect:")
        let context = Unmanaged.passUnretained(transfer).toOpaque()
        _ = pier_curl_easy_setopt_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = pier_curl_easy_setopt_string(handle, CURLOPT_URL, request.url)
        _ = pier_curl_easy_setopt_string(handle, CURLOPT_PROTOCOLS_STR, "https")
        _ = pier_curl_easy_setopt_long(handle, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        _ = pier_curl_easy_setopt_long(handle, CURLOPT_PIPEWAIT, 1)
        _ = pier_curl_easy_setopt_long(handle, CURLOPT_MAXAGE_CONN, Int(configuration.maximumIdle.components.seconds))
        _ = pier_curl_easy_setopt_long(handle, CURLOPT_TIMEOUT_MS, Int(configuration.timeout.components.seconds * 1000))
        if let caFile = configuration.caFile { _ = pier_curl_easy_setopt_string(handle, CURLOPT_CAINFO, caFile) }
        _ = pier_curl_easy_setopt_long(handle, CURLOPT_POST, 1)
        _ = pier_curl_easy_setopt_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(request.body.count))
        // Copied by libcurl: the bytes need not outlive this call.
        request.body.withUnsafeBytes { bytes in
            _ = pier_curl_easy_setopt_pointer(handle, CURLOPT_COPYPOSTFIELDS, bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1))
        }
        _ = pier_curl_easy_setopt_pointer(handle, CURLOPT_HTTPHEADER, UnsafeRawPointer(transfer.headerList))
        _ = pier_curl_easy_setopt_callback(handle, CURLOPT_WRITEFUNCTION, curlBodyCallback)
        _ = pier_curl_easy_setopt_pointer(handle, CURLOPT_WRITEDATA, context)
        _ = pier_curl_easy_setopt_callback(handle, CURLOPT_HEADERFUNCTION, curlHeaderCallback)
        _ = pier_curl_easy_setopt_pointer(handle, CURLOPT_HEADERDATA, context)
        transfers[handle] = transfer
        curl_multi_add_handle(multi, handle)
    }

    private func collectFinished(on multi: UnsafeMutableRawPointer) {
        var left: Int32 = 0
        while let message = curl_multi_info_read(multi, &left) {
            guard message.pointee.msg == CURLMSG_DONE, let handle = message.pointee.easy_handle else { continue }
            let code = message.pointee.data.result
            curl_multi_remove_handle(multi, handle)
            guard let transfer = transfers.removeValue(forKey: handle) else { continue }
            active[transfer.origin, default: 1] -= 1
            // Answered: the connection is up and the server's limit known. No answer: the next connection starts cold.
            if code == CURLE_OK { warm.insert(transfer.origin) } else { warm.remove(transfer.origin) }
            transfer.finish(handle: handle, code: code)
            curl_easy_reset(handle)
            idleHandles.append(handle)
        }
    }
}

/// The answers to requests posted together, gathered until the last one arrives. Touched only by the loop's thread
/// (or, once it stopped, by the thread that submitted), one request at a time.
private final class Answers: @unchecked Sendable {
    private var results: [Result<HTTP2Transport.Response, HTTP2Transport.Failure>?]
    private var left: Int
    private let continuation: CheckedContinuation<[Result<HTTP2Transport.Response, HTTP2Transport.Failure>], Never>

    init(count: Int, continuation: CheckedContinuation<[Result<HTTP2Transport.Response, HTTP2Transport.Failure>], Never>) {
        results = Array(repeating: nil, count: count)
        left = count
        self.continuation = continuation
    }

    func set(_ index: Int, _ result: Result<HTTP2Transport.Response, HTTP2Transport.Failure>) {
        results[index] = result
        left -= 1
        if left == 0 { continuation.resume(returning: results.map { $0 ?? .failure(.stopped) }) }
    }
}

/// One request's response as libcurl hands it over.
private final class CurlTransfer {
    let pending: CurlLoop.Pending
    let maximumBodyBytes: Int
    let origin: String
    var headerList: UnsafeMutablePointer<curl_slist>?
    var body: [UInt8] = []
    var headers: [String: String] = [:]
    var tooLarge = false

    init(pending: CurlLoop.Pending, maximumBodyBytes: Int, origin: String) {
        self.pending = pending
        self.maximumBodyBytes = maximumBodyBytes
        self.origin = origin
    }

    func finish(handle: UnsafeMutableRawPointer, code: CURLcode) {
        curl_slist_free_all(headerList)
        headerList = nil
        guard code == CURLE_OK else {
            let message = tooLarge ? "response body over \(maximumBodyBytes) bytes" : String(cString: curl_easy_strerror(code))
            return pending.finish(.failure(.transport(code: Int(code.rawValue), message: message)))
        }
        var version = 0
        _ = pier_curl_easy_getinfo_long(handle, CURLINFO_HTTP_VERSION, &version)
        guard version == Int(CURL_HTTP_VERSION_2_0) else { return pending.finish(.failure(.notHTTP2)) }
        var status = 0
        _ = pier_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        pending.finish(.success(HTTP2Transport.Response(status: status, headers: headers, body: body)))
    }
}

private func curlBodyCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let data, let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard transfer.body.count + length <= transfer.maximumBodyBytes else {
        transfer.tooLarge = true
        return 0
    }
    data.withMemoryRebound(to: UInt8.self, capacity: length) { transfer.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: length)) }
    return length
}

private func curlHeaderCallback(_ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?) -> Int {
    guard let data, let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    // `name: value\r\n`, read as bytes (Foundation's trimming cost more than the rest of an answer).
    data.withMemoryRebound(to: UInt8.self, capacity: length) { start in
        let line = UnsafeBufferPointer(start: start, count: length)
        guard transfer.headers.count < 64, let colon = line.firstIndex(of: UInt8(ascii: ":")) else { return }
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
        var from = colon + 1, to = line.count
        while from < to, isSpace(line[from]) { from += 1 }
        while to > from, isSpace(line[to - 1]) { to -= 1 }
        let name = String(decoding: UnsafeBufferPointer(rebasing: line[..<colon]), as: UTF8.self).lowercased()
        transfer.headers[name] = String(decoding: UnsafeBufferPointer(rebasing: line[from..<to]), as: UTF8.self)
    }
    return length
}

/// `curl_global_init` once per process, before the first handle (libcurl asks for it before any thread uses it).
private enum CurlGlobal {
    private static let done: Bool = {
        curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        return true
    }()

    static func initialise() {
        _ = done
    }
}
