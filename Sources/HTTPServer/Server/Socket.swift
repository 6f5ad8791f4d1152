import CSystem
import Glibc

/// The server's socket system calls, each returning a typed error instead of a bare errno.
enum Socket {
    struct Failure: Error, CustomStringConvertible {
        let call: String
        let errno: Int32
        var description: String { "\(call) failed: \(String(cString: strerror(errno)))" }
    }

    /// A non-blocking listening socket bound to `host:port`.
    static func listen(host: String, port: Int, backlog: Int32) throws -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>? = nil
        let status = getaddrinfo(host.isEmpty ? nil : host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw Failure(call: "getaddrinfo(\(host))", errno: status == EAI_SYSTEM ? Glibc.errno : EINVAL)
        }
        defer { freeaddrinfo(list) }
        var lastError = Failure(call: "bind", errno: EADDRNOTAVAIL)
        var candidate: UnsafeMutablePointer<addrinfo>? = first
        while let info = candidate {
            candidate = info.pointee.ai_next
            let fd = socket(info.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            if fd < 0 {
                lastError = Failure(call: "socket", errno: errno)
                continue
            }
            var on: Int32 = 1
            setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
            // Accepted sockets inherit it from the listener (Linux copies the listener's TCP options to each child): no
            // setsockopt per connection.
            setNoDelay(fd)
            if Glibc.bind(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) != 0 {
                lastError = Failure(call: "bind(\(host):\(port))", errno: errno)
                Glibc.close(fd)
                continue
            }
            if Glibc.listen(fd, backlog) != 0 {
                lastError = Failure(call: "listen", errno: errno)
                Glibc.close(fd)
                continue
            }
            return fd
        }
        throw lastError
    }

    /// The port a socket is bound to.
    static func localPort(_ fd: Int32) -> Int {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        } == 0
        guard ok else { return 0 }
        let family = storage.ss_family
        return withUnsafePointer(to: &storage) { pointer in
            if family == sa_family_t(AF_INET6) {
                return pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin6_port)) }
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { Int(UInt16(bigEndian: $0.pointee.sin_port)) }
        }
    }

    /// Answers go out as soon as they are written (no Nagle delay behind a client's delayed ACK).
    static func setNoDelay(_ fd: Int32) {
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
    }

    /// Raises the soft open-file limit to the hard limit, so the connection cap, not the kernel, decides.
    static func raiseFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur < limit.rlim_max else { return }
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }
}
