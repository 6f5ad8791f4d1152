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
        if let prepared {
            out.append(contentsOf: prepared.fields)
        } else {
            appendFields(of: response, to: &out)
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

    /// The handler's fields (those the server owns left out) and `Content-Length`, each line ending in CRLF.
    static func appendFields(of response: HTTPResponse, to out: inout [UInt8]) {
        response.headers.forEachField { name, value in
            guard !isReserved(name) else { return }
            out.append(contentsOf: name)
            out.append(UInt8(ascii: ":"))
            out.append(UInt8(ascii: " "))
            // A value that carries request data must not be able to start a new header line.
            if value.contains(where: { $0 == 0x0D || $0 == 0x0A }) {
                out.append(contentsOf: value.lazy.map { $0 == 0x0D || $0 == 0x0A ? UInt8(ascii: " ") : $0 })
            } else {
                out.append(contentsOf: value)
            }
            out.append(0x0D)
            out.append(0x0A)
        }
        if response.status.allowsBody {
            out.append(contentsOf: "Content-Length: ".utf8)
            appendDecimal(response.body.count, to: &out)
            out.append(0x0D)
            out.append(0x0A)
        }
    }

    static func appendDecimal(_ value: Int, to out: inout [UInt8]) {
        if value < 10 {
            out.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var rest = value
        withUnsafeMutableBytes(of: &digits) { buffer in
            while rest > 0 && count < 20 {
                buffer[count] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                count += 1
            }
            for index in stride(from: count - 1, through: 0, by: -1) { out.append(buffer[index]) }
        }
    }
}
