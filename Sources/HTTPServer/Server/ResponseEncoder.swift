import Glibc

/// Writes a response's status line, headers and body into a connection's output buffer.
enum ResponseEncoder {
    /// The server's name; no version, so that scanners learn nothing.
    static let serverHeader = Array("Server: pier\r\n".utf8)
    static let continueBytes = Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)
    private static let statusLines: [Int: [UInt8]] = {
        let common: [HTTPStatus] = [
            .ok, .created, .accepted, .noContent, .notModified, .badRequest, .unauthorized, .forbidden, .notFound,
            .methodNotAllowed, .requestTimeout, .contentTooLarge, .uriTooLong, .unprocessableContent,
            .headerFieldsTooLarge, .internalServerError, .badGateway, .serviceUnavailable,
        ]
        var lines: [Int: [UInt8]] = [:]
        for status in common { lines[status.code] = Array("HTTP/1.1 \(status.code) \(status.reason)\r\n".utf8) }
        return lines
    }()

    /// Headers the server owns; a handler's own values for them are dropped.
    private static func isReserved(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        switch name.count {
        case 4: return HeadParser.equalFolded(name, "date")
        case 6: return HeadParser.equalFolded(name, "server")
        case 10: return HeadParser.equalFolded(name, "connection")
        case 14: return HeadParser.equalFolded(name, "content-length")
        case 17: return HeadParser.equalFolded(name, "transfer-encoding")
        default: return false
        }
    }

    /// - Parameters:
    ///   - fixed: `Server` and any configured extra fields, already encoded.
    ///   - cors: the route is public (``RouteAccess``): `Access-Control-Allow-Origin: *` follows `Date`.
    static func encode(
        _ response: HTTPResponse, into out: inout [UInt8], date: [UInt8], keepAlive: Bool,
        http10: Bool, omitBody: Bool, fixed: [UInt8] = serverHeader, cors: Bool = false, upgrade: Bool = false
    ) {
        let prepared = response.prepared
        if let prepared {
            out.append(contentsOf: prepared.statusLine)
        } else {
            appendStatusLine(response.status, to: &out)
        }
        out.append(contentsOf: fixed)
        out.append(contentsOf: "Date: ".utf8)
        out.append(contentsOf: date)
        out.append(0x0D)
        out.append(0x0A)
        if cors { out.append(contentsOf: CORS.allowAnyOrigin) }
        if let prepared, prepared.bodyCount == response.body.count {
            out.append(contentsOf: prepared.fields)
        } else {
            if let prepared {
                out.append(contentsOf: prepared.fieldsWithoutLength)
            } else {
                appendFields(of: response, to: &out)
            }
            if response.status.allowsBody { appendLength(response.body.count, to: &out) }
        }
        if upgrade {
            out.append(contentsOf: "Connection: Upgrade\r\n".utf8)
        } else if !keepAlive {
            out.append(contentsOf: "Connection: close\r\n".utf8)
        } else if http10 {
            out.append(contentsOf: "Connection: keep-alive\r\n".utf8)
        }
        out.append(0x0D)
        out.append(0x0A)
        if response.status.allowsBody && !omitBody {
            out.append(contentsOf: response.body)
        }
    }

    static func appendStatusLine(_ status: HTTPStatus, to out: inout [UInt8]) {
        if let line = statusLines[status.code] {
            out.append(contentsOf: line)
        } else {
            out.append(contentsOf: "HTTP/1.1 \(status.code) \(status.reason)\r\n".utf8)
        }
    }

    /// The handler's fields (those the server owns left out), each line ending in CRLF (``appendLength(_:to:)`` writes
    /// `Content-Length` after them). Written into a buffer on the stack and appended as one run: an append a byte or a
    /// piece checks the array's room each time.
    static func appendFields(of response: HTTPResponse, to out: inout [UInt8]) {
        // Each field's line is its name, ": ", its value and CRLF.
        var size = 0
        response.headers.forEachField { name, value in size += name.count + value.count + 4 }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: size) { buffer in
            guard let base = buffer.baseAddress else { return }
            var count = 0
            @inline(__always) func put(_ bytes: UnsafeBufferPointer<UInt8>) {
                if let source = bytes.baseAddress { memcpy(base + count, source, bytes.count) }
                count += bytes.count
            }
            @inline(__always) func put(_ literal: StaticString) {
                memcpy(base + count, literal.utf8Start, literal.utf8CodeUnitCount)
                count += literal.utf8CodeUnitCount
            }
            response.headers.forEachField { name, value in
                guard !isReserved(name) else { return }
                put(name)
                put(": ")
                let valueStart = count
                put(value)
                // A value that carries request data must not be able to start a new header line.
                if ByteScan.contains(value, 0x0D, or: 0x0A) {
                    for index in valueStart..<count where buffer[index] == 0x0D || buffer[index] == 0x0A { buffer[index] = UInt8(ascii: " ") }
                }
                put("\r\n")
            }
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<count]))
        }
    }

    /// `Content-Length: <count>` and CRLF.
    static func appendLength(_ count: Int, to out: inout [UInt8]) {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 38) { buffer in
            guard let base = buffer.baseAddress else { return }
            let label: StaticString = "Content-Length: "
            memcpy(base, label.utf8Start, label.utf8CodeUnitCount)
            var end = label.utf8CodeUnitCount
            end += writeDecimal(count, into: UnsafeMutableBufferPointer(rebasing: buffer[end...]))
            buffer[end] = 0x0D
            buffer[end + 1] = 0x0A
            out.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[..<(end + 2)]))
        }
    }

    /// Writes `value` (not negative) in decimal at the start of `buffer` (room for 20 digits), giving the digits' count.
    private static func writeDecimal(_ value: Int, into buffer: UnsafeMutableBufferPointer<UInt8>) -> Int {
        var count = 1
        var rest = value / 10
        while rest > 0 {
            count += 1
            rest /= 10
        }
        rest = value
        for index in stride(from: count - 1, through: 0, by: -1) {
            buffer[index] = UInt8(ascii: "0") + UInt8(rest % 10)
            rest /= 10
        }
        return count
    }
}
