import Glibc

/// A blocking TCP client that writes raw bytes and reads raw HTTP/1.1 responses, so tests see exactly what
/// crossed the socket. Every read has a timeout, so a server bug fails a test instead of hanging it.
public final class RawClient {
    public enum Failure: Error, CustomStringConvertible {
        case system(String, Int32)
        case closed(partial: [UInt8])
        case timedOut
        case malformed(String)

        public var description: String {
            switch self {
            case .system(let call, let error): "\(call): \(String(cString: strerror(error)))"
            case .closed(let partial): "connection closed after \(partial.count) bytes"
            case .timedOut: "timed out waiting for the server"
            case .malformed(let why): "malformed response: \(why)"
            }
        }
    }

    public let fd: Int32
    private var buffer: [UInt8] = []

    /// Connects to `host:port` (IPv4) with a receive timeout.
    public init(port: Int, host: String = "127.0.0.1", timeoutSeconds: Int = 10) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw Failure.system("socket", errno) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        inet_pton(AF_INET, host, &address.sin_addr)
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            let error = errno
            Glibc.close(fd)
            throw Failure.system("connect", error)
        }
    }

    deinit { Glibc.close(fd) }

    /// Sets the receive buffer small so that a server writing to a client that never reads fills up fast.
    public func shrinkReceiveBuffer(to bytes: Int32 = 4096) {
        var size = bytes
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }

    public func send(_ text: String) throws { try send(Array(text.utf8)) }

    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress.map { $0 + offset }, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw Failure.system("send", errno) }
            offset += sent
        }
    }

    /// Sends one request on this connection and reads its response.
    public func request(
        _ method: String = "GET", _ target: String, headers: [(String, String)] = [], body: [UInt8] = []
    ) throws -> RawResponse {
        var head = "\(method) \(target) HTTP/1.1\r\n"
        // `Host: test` unless the caller names its own (a virtual host behind a proxy).
        if !headers.contains(where: { $0.0.lowercased() == "host" }) { head += "Host: test\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if !body.isEmpty || method == "POST" { head += "Content-Length: \(body.count)\r\n" }
        try send(Array((head + "\r\n").utf8) + body)
        return try readResponse(head: method == "HEAD")
    }

    /// One request on a new connection to `port`.
    public static func request(
        port: Int, _ target: String, method: String = "GET", headers: [(String, String)] = [], timeoutSeconds: Int = 30
    ) throws -> RawResponse {
        try RawClient(port: port, timeoutSeconds: timeoutSeconds).request(method, target, headers: headers)
    }

    /// Reads one response. `head` says the request was HEAD (no body follows whatever the length says).
    public func readResponse(head: Bool = false) throws -> RawResponse {
        let headEnd = try readUntilHeadEnd()
        let headText = String(decoding: buffer[0..<headEnd], as: UTF8.self)
        buffer.removeFirst(headEnd + 4)
        var lines = headText.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst()
        let parts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/1."), let status = Int(parts[1]) else {
            throw Failure.malformed("status line \(statusLine)")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw Failure.malformed("header line \(line)") }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...]).trimmingCharacters(in: " \t")))
        }
        var response = RawResponse(status: status, reason: parts.count > 2 ? String(parts[2]) : "", headers: headers, body: [])
        if head || status == 204 || status == 304 || (100..<200).contains(status) { return response }
        if let lengthText = response.header("Content-Length") {
            guard let length = Int(lengthText) else { throw Failure.malformed("Content-Length \(lengthText)") }
            try fill(atLeast: length)
            response.body = Array(buffer[0..<length])
            buffer.removeFirst(length)
        } else {
            response.body = try readToEnd()
        }
        return response
    }

    /// Reads exactly `count` bytes (waiting for them), consuming them.
    public func read(_ count: Int) throws -> [UInt8] {
        try fill(atLeast: count)
        defer { buffer.removeFirst(count) }
        return Array(buffer[0..<count])
    }

    /// Reads until the server closes; returns everything not yet consumed.
    public func readToEnd() throws -> [UInt8] {
        while try receive() {}
        defer { buffer.removeAll() }
        return buffer
    }

    /// True if the server has closed the connection (EOF or reset) with nothing more to read.
    public func isClosedByServer() -> Bool {
        do {
            while try receive() {}
            return true
        } catch Failure.system(_, let error) where error == ECONNRESET {
            return true
        } catch {
            return false
        }
    }

    /// True if the server closed the connection with a FIN (EOF) and nothing more to read; false if it reset
    /// it (which can destroy answers the client had not read yet), left it open, or sent more.
    public func isClosedCleanlyByServer() -> Bool {
        do {
            return try !receive() && buffer.isEmpty
        } catch {
            return false
        }
    }

    /// Half-closes the client's sending side (FIN), as some clients do after their last request.
    public func finishSending() {
        Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    private func readUntilHeadEnd() throws -> Int {
        var searchFrom = 0
        while true {
            if buffer.count >= 4 {
                for index in searchFrom...(buffer.count - 4)
                where buffer[index] == 13 && buffer[index + 1] == 10 && buffer[index + 2] == 13 && buffer[index + 3] == 10 {
                    return index
                }
                searchFrom = buffer.count - 3
            }
            guard try receive() else { throw Failure.closed(partial: buffer) }
        }
    }

    private func fill(atLeast count: Int) throws {
        while buffer.count < count {
            guard try receive() else { throw Failure.closed(partial: buffer) }
        }
    }

    /// One recv; false on EOF.
    private func receive() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65536)
        let count = chunk.withUnsafeMutableBytes { Glibc.recv(fd, $0.baseAddress, $0.count, 0) }
        if count > 0 {
            buffer.append(contentsOf: chunk[0..<count])
            return true
        }
        if count == 0 { return false }
        let error = errno
        if error == EAGAIN || error == EWOULDBLOCK { throw Failure.timedOut }
        throw Failure.system("recv", error)
    }
}

extension String {
    fileprivate func trimmingCharacters(in characters: String) -> String {
        let set = Set(characters)
        return String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }

    fileprivate func components(separatedBy separator: String) -> [String] {
        var result: [String] = []
        var rest = Substring(self)
        while let range = rest.firstRange(of: separator) {
            result.append(String(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        result.append(String(rest))
        return result
    }
}
