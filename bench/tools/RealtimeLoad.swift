// A Realtime load generator of the project's own (bench/scenarios/realtime.sh builds it with `swiftc -O`): holds many
// subscribed sockets with little CPU — one thread, poll(2) (Glibc's overlay has no epoll), non-blocking sockets, frames
// written by hand with a zero mask — heartbeats each on Realtime's schedule, and records when every postgres_changes
// event arrives.
//
//   realtime-load PORT APIKEY SOCKETS HEARTBEAT_S OUTPUT
//
// Prints `joined <n> <failed>` once every socket joined (or failed), then runs until SIGTERM, and writes one line per
// event received to OUTPUT: `<wave_id> <arrival, ns since 1970>`; and on stdout
// `heartbeats <sent> <answered> closed <n>` at the end.
import Glibc

let arguments = CommandLine.arguments
guard arguments.count == 6, let port = UInt16(arguments[1]), let total = Int(arguments[3]), let heartbeat = Double(arguments[4]) else {
    fputs("usage: realtime-load PORT APIKEY SOCKETS HEARTBEAT_S OUTPUT\n", stderr)
    exit(2)
}
let key = arguments[2]
let output = arguments[5]

func nowNs() -> Int64 {
    var spec = timespec()
    clock_gettime(CLOCK_REALTIME, &spec)
    return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
}

func monotonic() -> Double {
    var spec = timespec()
    clock_gettime(CLOCK_MONOTONIC, &spec)
    return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
}

/// A masked text frame (a zero mask key: the payload goes as it is).
func frame(_ text: String) -> [UInt8] {
    let payload = Array(text.utf8)
    var bytes: [UInt8] = [0x81]
    if payload.count < 126 {
        bytes.append(0x80 | UInt8(payload.count))
    } else {
        bytes += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
    }
    bytes += [0, 0, 0, 0]
    return bytes + payload
}

let upgrade = Array(("GET /realtime/v1/websocket?apikey=\(key)&vsn=2.0.0 HTTP/1.1\r\nHost: bench\r\nUpgrade: websocket\r\n"
    + "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n").utf8)
let join = frame(#"["1","1","realtime:wave_checkins_live","phx_join",{"config":{"broadcast":{"ack":false,"self":false},"#
    + #""presence":{"key":"","enabled":false},"postgres_changes":[{"event":"*","schema":"public","table":"wave_checkins"}],"private":false}}]"#)

final class Socket {
    let fd: Int32
    var input: [UInt8] = []
    var upgraded = false
    var joined = false
    var failed = false
    var closed = false
    var nextBeat: Double
    var ref = 1
    init(fd: Int32, nextBeat: Double) {
        self.fd = fd
        self.nextBeat = nextBeat
    }
}

var sockets: [Int32: Socket] = [:]
/// What poll(2) watches: every socket (a closed one is skipped with fd -1).
var watched: [pollfd] = []
var slot: [Int32: Int] = [:]
var received: [(wave: String, at: Int64)] = []
received.reserveCapacity(total * 4)
var (joinedCount, failedCount, beatsSent, beatsAnswered, closedCount) = (0, 0, 0, 0, 0)

func send(_ socket: Socket, _ bytes: [UInt8]) {
    let written = bytes.withUnsafeBytes { write(socket.fd, $0.baseAddress, $0.count) }
    if written != bytes.count { socket.failed = true }
}

func open(_ index: Int, start: Double) -> Bool {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
    guard fd >= 0 else { return false }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = port.bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    let result = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
    guard result == 0 || errno == EINPROGRESS else {
        close(fd)
        return false
    }
    // Spread the heartbeats over one period, as many apps started at different times would.
    let socket = Socket(fd: fd, nextBeat: start + heartbeat * Double(index) / Double(max(total, 1)))
    sockets[fd] = socket
    slot[fd] = watched.count
    watched.append(pollfd(fd: fd, events: Int16(POLLIN | POLLOUT), revents: 0))
    return true
}

/// Reads what arrived; handles whole frames.
func readable(_ socket: Socket) {
    var buffer = [UInt8](repeating: 0, count: 16_384)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(socket.fd, $0.baseAddress, $0.count) }
        if count > 0 {
            socket.input += buffer[0..<count]
            continue
        }
        if count == 0 { finish(socket) }
        break
    }
    if !socket.upgraded {
        guard let end = find(socket.input, [13, 10, 13, 10]) else { return }
        let head = String(decoding: socket.input[0..<end], as: UTF8.self)
        guard head.hasPrefix("HTTP/1.1 101") else {
            fail(socket, head.split(separator: "\r\n").first.map(String.init) ?? "no answer")
            return
        }
        socket.upgraded = true
        socket.input.removeFirst(end + 4)
    }
    var offset = 0
    while socket.input.count - offset >= 2 {
        let opcode = socket.input[offset] & 0x0F
        var length = Int(socket.input[offset + 1] & 0x7F)
        var header = 2
        if length == 126 {
            guard socket.input.count - offset >= 4 else { break }
            length = Int(socket.input[offset + 2]) << 8 | Int(socket.input[offset + 3])
            header = 4
        } else if length == 127 {
            guard socket.input.count - offset >= 10 else { break }
            length = socket.input[(offset + 2)..<(offset + 10)].reduce(0) { $0 << 8 | Int($1) }
            header = 10
        }
        guard socket.input.count - offset >= header + length else { break }
        let payload = socket.input[(offset + header)..<(offset + header + length)]
        offset += header + length
        if opcode == 8 {
            finish(socket)
            return
        }
        guard opcode == 1 else { continue }
        message(socket, String(decoding: payload, as: UTF8.self))
    }
    if offset > 0 { socket.input.removeFirst(offset) }
}

func message(_ socket: Socket, _ text: String) {
    if text.contains(#""postgres_changes",{"ids""#) {
        let at = nowNs()
        let bytes = Array(text.utf8)
        let marker = Array(#""wave_id":""#.utf8)
        guard let found = find(bytes, marker) else { return }
        let rest = bytes[(found + marker.count)...]
        received.append((String(decoding: rest[..<(rest.firstIndex(of: 0x22) ?? rest.endIndex)], as: UTF8.self), at))
    } else if text.contains(#","system","#) {
        if !socket.joined {
            socket.joined = true
            joinedCount += 1
        }
    } else if text.hasPrefix(#"[null,"#) && text.contains(#""phoenix","phx_reply""#) {
        beatsAnswered += 1
    } else if text.contains(#""status":"error""#) {
        fail(socket, text)
    }
}

func fail(_ socket: Socket, _ why: String) {
    if !socket.failed && !socket.joined {
        socket.failed = true
        failedCount += 1
        if failedCount <= 3 { fputs("realtime-load: \(why.prefix(200))\n", stderr) }
    }
}

func finish(_ socket: Socket) {
    guard !socket.closed else { return }
    socket.closed = true
    closedCount += 1
    fail(socket, "closed")
    if let index = slot[socket.fd] { watched[index].fd = -1 }
    close(socket.fd)
}

func find(_ haystack: [UInt8], _ needle: [UInt8]) -> Int? {
    guard haystack.count >= needle.count else { return nil }
    for index in 0...(haystack.count - needle.count) where haystack[index] == needle[0] {
        if Array(haystack[index..<(index + needle.count)]) == needle { return index }
    }
    return nil
}

signal(SIGPIPE, SIG_IGN)
nonisolated(unsafe) var stop = false
signal(SIGTERM) { _ in stop = true }

let start = monotonic() + heartbeat
var opened = 0
var reported = false
while !stop {
    // Open in batches: at most 256 handshakes in flight (the listen backlog is finite).
    while opened < total && opened - (joinedCount + failedCount) < 256 {
        if !open(opened, start: start) { failedCount += 1 }
        opened += 1
    }
    let ready = poll(&watched, nfds_t(watched.count), 50)
    if ready > 0 {
        for index in 0..<watched.count where watched[index].revents != 0 {
            let entry = watched[index]
            watched[index].revents = 0
            guard let socket = sockets[entry.fd], !socket.closed else { continue }
            if entry.revents & Int16(POLLOUT) != 0 {
                watched[index].events = Int16(POLLIN)
                send(socket, upgrade + join)
            }
            if entry.revents & Int16(POLLIN | POLLHUP | POLLERR) != 0 { readable(socket) }
        }
    }
    if !reported && opened == total && joinedCount + failedCount >= total {
        reported = true
        print("joined \(joinedCount) \(failedCount)")
        fflush(stdout)
    }
    let now = monotonic()
    if reported {
        for socket in sockets.values where socket.joined && !socket.closed && socket.nextBeat <= now {
            socket.ref += 1
            send(socket, frame(#"[null,"\#(socket.ref)","phoenix","heartbeat",{}]"#))
            beatsSent += 1
            socket.nextBeat += heartbeat
        }
    }
}
if let file = fopen(output, "w") {
    for entry in received { fputs("\(entry.wave) \(entry.at)\n", file) }
    fclose(file)
}
print("heartbeats \(beatsSent) \(beatsAnswered) closed \(closedCount)")
