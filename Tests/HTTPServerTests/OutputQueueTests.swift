import Glibc
@testable import HTTPServer
import HTTPTesting
import XCTest

/// The output queue over a real socket pair whose buffers are small, so every write stops part-way: appended bytes and
/// bodies attached by reference, interleaved, arrive whole and in order however the writes are cut.
final class OutputQueueTests: XCTestCase {
    func testWritesCutAnywhereDeliverEveryByteInOrder() throws {
        var pair: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &pair), 0)
        defer { close(pair[0]); close(pair[1]) }
        var small: Int32 = 4096
        setsockopt(pair[0], SOL_SOCKET, SO_SNDBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        setsockopt(pair[1], SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(pair[0], F_SETFL, fcntl(pair[0], F_GETFL) | O_NONBLOCK)

        var queue = OutputQueue()
        var expected: [UInt8] = []
        var next: UInt8 = 0
        func piece(_ count: Int) -> [UInt8] {
            (0..<count).map { _ in
                next = next == 250 ? 0 : next + 1
                return next
            }
        }
        // Heads and small answers appended, large bodies attached: a body right after another, one first, bytes last.
        for (count, attached) in [(3000, true), (120, false), (70_000, true), (9000, true), (17, false), (5000, true), (33_000, false)] {
            let bytes = piece(count)
            expected += bytes
            if attached { queue.attach(bytes) } else { queue.bytes += bytes }
        }
        XCTAssertEqual(queue.pending, expected.count)

        var received: [UInt8] = []
        var blocked = 0
        while true {
            var progressed = false
            let written = queue.write(to: pair[0], progressed: &progressed)
            if case .failed = written { return XCTFail("the write failed") }
            if case .all = written { break }
            blocked += 1
            // Read a little at a time: the next write resumes inside whatever piece this one stopped in.
            var chunk = [UInt8](repeating: 0, count: 1500)
            let count = chunk.withUnsafeMutableBytes { recv(pair[1], $0.baseAddress, $0.count, 0) }
            XCTAssertGreaterThan(count, 0)
            received += chunk[0..<max(count, 0)]
        }
        XCTAssertEqual(queue.pending, 0)
        queue.written(keeping: 1 << 20)
        while received.count < expected.count {
            var chunk = [UInt8](repeating: 0, count: 65536)
            let count = chunk.withUnsafeMutableBytes { recv(pair[1], $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += chunk[0..<count]
        }
        XCTAssertGreaterThan(blocked, 20, "the writes were cut many times")
        XCTAssertEqual(received.count, expected.count)
        XCTAssertTrue(received == expected, "every byte in order")
    }
}

/// The listener's options its connections rely on.
final class ListenerTests: XCTestCase {
    /// TCP_NODELAY is set once, on the listener, and every accepted socket has it (no setsockopt per connection).
    func testAcceptedSocketsInheritNoDelayFromTheListener() throws {
        let listener = try Socket.listen(host: "127.0.0.1", port: 0, backlog: 8)
        defer { Glibc.close(listener) }
        let client = try RawClient(port: Socket.localPort(listener))
        defer { withExtendedLifetime(client) {} }
        var accepted: Int32 = -1
        for _ in 0..<200 where accepted < 0 {
            accepted = Glibc.accept(listener, nil, nil)
            if accepted < 0 { usleep(5_000) }
        }
        XCTAssertGreaterThanOrEqual(accepted, 0)
        defer { Glibc.close(accepted) }
        for fd in [listener, accepted] {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            XCTAssertEqual(getsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &value, &length), 0)
            XCTAssertEqual(value, 1, "TCP_NODELAY on \(fd == listener ? "the listener" : "the accepted socket")")
        }
    }
}
