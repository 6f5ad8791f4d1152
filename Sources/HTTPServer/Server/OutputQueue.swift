import Glibc

/// What a connection has queued for its socket and how much of it is written: both kinds of connection (HTTP/1.1 and
/// WebSocket) write through it, and an upgrade hands it on with what is still unwritten (the `101`).
///
/// Heads and small bodies are appended to ``bytes``; a large body a handler already holds (a cached answer) is queued by
/// reference (``attach(_:)``) and sent from where it lies, head and body in one `sendmsg` — nginx hands its files to the
/// kernel the same way, and copying an 8 KB answer into the buffer was a fifth of a cached request's instructions.
struct OutputQueue {
    /// Appended to: what is queued after every attached body. What is written is dropped when all of it is
    /// (``written(keeping:)``).
    var bytes: [UInt8] = []
    /// What was queued before ``bytes``, in order: earlier appends closed by an ``attach(_:)`` (`ours`: their buffer is
    /// taken back for ``bytes`` once written, so a connection allocates none per answer), and the attached bodies.
    private var chunks: [(bytes: [UInt8], ours: Bool)] = []
    /// Bytes in ``chunks``.
    private var chunked = 0
    /// How much of the first pending piece (``chunks``' first, else ``bytes``) is written.
    private var sent = 0

    /// A body at least this large is sent from where it lies rather than copied: below it, one copy costs less than
    /// another piece to send.
    static let attachedBodyMinimum = 4096

    /// The outcome of a write.
    enum Written {
        /// Everything queued is written.
        case all
        /// The socket takes no more now (`EAGAIN`): wait for `EPOLLOUT`.
        case blocked
        /// The socket failed (the peer reset it): close.
        case failed
    }

    var pending: Int { chunked + bytes.count - sent }

    /// Queues `body` after what is queued, without copying it.
    mutating func attach(_ body: [UInt8]) {
        guard !body.isEmpty else { return }
        if !bytes.isEmpty {
            chunks.append((bytes, true))
            chunked += bytes.count
            bytes = []
        }
        chunks.append((body, false))
        chunked += body.count
    }

    /// Sends what is pending to `fd`; `progressed` is set when any byte went out.
    mutating func write(to fd: Int32, progressed: inout Bool) -> Written {
        while pending > 0 {
            let count = chunks.isEmpty ? sendBytes(fd) : sendChunks(fd)
            if count > 0 {
                advance(by: count)
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

    private func sendBytes(_ fd: Int32) -> Int {
        bytes.withUnsafeBytes { bytes in
            Glibc.send(fd, bytes.baseAddress.map { $0 + sent }, bytes.count - sent, Int32(MSG_NOSIGNAL))
        }
    }

    /// The first chunk's rest and what follows it (the next chunk, or ``bytes``), in one `sendmsg`.
    private func sendChunks(_ fd: Int32) -> Int {
        let next = chunks.count > 1 ? chunks[1].bytes : bytes
        return chunks[0].bytes.withUnsafeBytes { first in
            next.withUnsafeBytes { next in
                var vectors = (
                    iovec(iov_base: UnsafeMutableRawPointer(mutating: first.baseAddress.map { $0 + sent }), iov_len: first.count - sent),
                    iovec(iov_base: UnsafeMutableRawPointer(mutating: next.baseAddress), iov_len: next.count))
                return withUnsafeMutablePointer(to: &vectors) { pointer in
                    pointer.withMemoryRebound(to: iovec.self, capacity: 2) { vectors in
                        var message = msghdr()
                        message.msg_iov = vectors
                        message.msg_iovlen = next.isEmpty ? 1 : 2
                        return Glibc.sendmsg(fd, &message, Int32(MSG_NOSIGNAL))
                    }
                }
            }
        }
    }

    /// Drops the chunks `count` more written bytes finish.
    private mutating func advance(by count: Int) {
        sent += count
        while let first = chunks.first, sent >= first.bytes.count {
            sent -= first.bytes.count
            chunked -= first.bytes.count
            var done = chunks.removeFirst()
            if done.ours, bytes.capacity == 0 {
                done.bytes.removeAll(keepingCapacity: true)
                bytes = done.bytes
            }
        }
    }

    /// Hands ``bytes``' buffer on (to ``BufferPool``) when the connection closes, leaving the queue empty.
    mutating func takeBytes() -> [UInt8] {
        chunks.removeAll()
        chunked = 0
        sent = 0
        defer { bytes = [] }
        return bytes
    }

    /// Empties the queue once everything is written, keeping a buffer of at most `keep` bytes' capacity (one large
    /// answer does not pin its buffer for the connection's life).
    mutating func written(keeping keep: Int) {
        if bytes.capacity > keep {
            bytes = []
        } else {
            bytes.removeAll(keepingCapacity: true)
        }
        chunks.removeAll(keepingCapacity: true)
        chunked = 0
        sent = 0
    }
}
