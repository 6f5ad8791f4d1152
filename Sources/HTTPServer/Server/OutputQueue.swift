import Glibc

/// What a connection has queued for its socket and how much of it is written: both kinds of connection (HTTP/1.1 and
/// WebSocket) write through it, and an upgrade hands it on with what is still unwritten (the `101`).
struct OutputQueue {
    /// Appended to only; what is written is dropped when all of it is (``written(keeping:)``).
    var bytes: [UInt8] = []
    private var sent = 0

    /// The outcome of a write.
    enum Written {
        /// Everything queued is written.
        case all
        /// The socket takes no more now (`EAGAIN`): wait for `EPOLLOUT`.
        case blocked
        /// The socket failed (the peer reset it): close.
        case failed
    }

    var pending: Int { bytes.count - sent }

    /// Sends what is pending to `fd`; `progressed` is set when any byte went out.
    mutating func write(to fd: Int32, progressed: inout Bool) -> Written {
        while pending > 0 {
            let count = bytes.withUnsafeBytes { bytes in
                Glibc.send(fd, bytes.baseAddress.map { $0 + sent }, pending, Int32(MSG_NOSIGNAL))
            }
            if count > 0 {
                sent += count
                progressed = true
            } else {
                let error = errno
                if count < 0 && (error == EAGAIN || error == EWOULDBLOCK) { return .blocked }
                if count < 0 && error == EINTR { continue }
                return .failed
            }
        }
        return .all
    }

    /// Empties the queue once everything is written, keeping a buffer of at most `keep` bytes' capacity (one large
    /// answer does not pin its buffer for the connection's life).
    mutating func written(keeping keep: Int) {
        if bytes.capacity > keep {
            bytes = []
        } else {
            bytes.removeAll(keepingCapacity: true)
        }
        sent = 0
    }
}
