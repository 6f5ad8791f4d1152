import Glibc

/// Validates and decodes a complete request head (request line and header fields, ending in CRLF CRLF).
///
/// Kept apart from ``RequestParser`` so that the framing rules read top to bottom in one place.
enum HeadParser {
    enum Framing: Sendable {
        case none
        case length(Int)
        case chunked
    }

    struct FramedHead: Sendable {
        var request: HTTPRequest
        var keepAlive: Bool
        var framing: Framing
        var expectsContinue: Bool
    }

    /// `tchar` from RFC 9110 §5.6.2, as two 64-bit masks (bit n of the first for byte n, of the second for byte 64 + n):
    /// constants, not a table, so asking costs no global's lazy initialisation check.
    @inline(__always)
    static func isTokenByte(_ byte: UInt8) -> Bool {
        let mask: UInt64
        switch byte >> 6 {
        case 0: mask = 0x03FF_6CFA_0000_0000  // ! # $ % & ' * + - . and the digits
        case 1: mask = 0x57FF_FFFF_C7FF_FFFE  // the letters, ^ _ ` | ~
        default: return false
        }
        return mask >> UInt64(byte & 63) & 1 != 0
    }

    /// `fieldCount`: how many field lines the head holds, as the caller counted them (room is made once).
    static func parse(
        _ head: UnsafeBufferPointer<UInt8>, requestLineEnd: Int, fieldCount: Int, limits: ParserLimits
    ) -> Result<FramedHead, HTTPParseError> {
        // Request line: method SP request-target SP HTTP-version
        let line = UnsafeBufferPointer(rebasing: head[0..<requestLineEnd])
        var methodEnd = 0
        while methodEnd < line.count && isTokenByte(line[methodEnd]) { methodEnd += 1 }
        guard methodEnd > 0 else { return .failure(.malformedRequestLine("missing method")) }
        guard methodEnd < line.count && line[methodEnd] == 0x20 else {
            return .failure(malformed(line[methodEnd...]))
        }
        let targetStart = methodEnd + 1
        var targetEnd = targetStart
        // The target ends at the first byte that is not visible ASCII, which in a well-formed line is the space before the
        // version's eight bytes: checked there first, the target is read sixteen bytes at a time.
        let versionSpace = line.count - 9
        if versionSpace > targetStart && line[versionSpace] == 0x20
            && ByteScan.all(UnsafeBufferPointer(rebasing: line[targetStart..<versionSpace]), within: 0x21, 0x7E)
        {
            targetEnd = versionSpace
        } else {
            while targetEnd < line.count && line[targetEnd] > 0x20 && line[targetEnd] < 0x7F { targetEnd += 1 }
        }
        guard targetEnd > targetStart else { return .failure(malformed(line[targetStart...])) }
        guard targetEnd < line.count && line[targetEnd] == 0x20 else { return .failure(malformed(line[targetEnd...])) }
        let versionBytes = UnsafeBufferPointer(rebasing: line[(targetEnd + 1)...])
        let version: HTTPVersion
        switch parseVersion(versionBytes) {
        case .success(let parsed): version = parsed
        case .failure(let error): return .failure(error)
        }
        let method = HTTPMethod(bytes: UnsafeBufferPointer(rebasing: line[0..<methodEnd]))
        let targetBytes = UnsafeBufferPointer(rebasing: line[targetStart..<targetEnd])

        // Header fields: their bytes copied once into the request's headers, names folded to lower case — from the
        // target on, so that the request reads its target, path and query from the same buffer (``HTTPRequest/text``).
        let section = requestLineEnd + 2
        var headers = HTTPHeaders(section: UnsafeBufferPointer(rebasing: head[targetStart..<max(section, head.count - 2)]), fields: fieldCount)
        var hosts = 0
        // Content-Length's members, read as bytes as they come: the length they agree on, or the first problem.
        var sawContentLength = false
        var contentLength: Int? = nil
        var contentLengthError: HTTPParseError? = nil
        var transferEncodings: [String] = []
        var connectionClose = false
        var connectionKeepAlive = false
        var expectation: String? = nil
        var index = requestLineEnd + 2
        let end = head.count - 2
        while index < end {
            // The head ends in CRLF CRLF, so a line's CRLF is always found; a bare CR before it is the field's to refuse.
            var lineEnd = index
            while let base = head.baseAddress, let found = memchr(base + lineEnd, 0x0D, end + 2 - lineEnd) {
                lineEnd = UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - base
                if head[lineEnd + 1] == 0x0A { break }
                lineEnd += 1
            }
            let fieldLine = UnsafeBufferPointer(rebasing: head[index..<lineEnd])
            let field: FieldSpan
            switch parseField(fieldLine) {
            case .success(let parsed): field = parsed
            case .failure(let error): return .failure(error)
            }
            let name = UnsafeBufferPointer(rebasing: fieldLine[0..<field.nameEnd])
            let value = UnsafeBufferPointer(rebasing: fieldLine[field.valueStart..<field.valueEnd])
            // The fields framing and the connection depend on, recognised by their length before their bytes.
            switch name.count {
            case 4 where equalFolded(name, "host"): hosts += 1
            case 14 where equalFolded(name, "content-length"):
                sawContentLength = true
                readContentLength(value, into: &contentLength, error: &contentLengthError)
            case 17 where equalFolded(name, "transfer-encoding"): transferEncodings.append(string(value))
            case 10 where equalFolded(name, "connection"):
                let tokens = connectionTokens(value)
                connectionClose = connectionClose || tokens.close
                connectionKeepAlive = connectionKeepAlive || tokens.keepAlive
            case 6 where equalFolded(name, "expect"): expectation = string(value)
            default: break
            }
            let offset = index - targetStart
            headers.appendParsed(
                start: offset, nameEnd: offset + field.nameEnd, valueStart: offset + field.valueStart, end: offset + field.valueEnd)
            index = lineEnd + 2
        }
        headers.foldNames()

        if hosts > 1 { return .failure(.multipleHosts) }
        if hosts == 0 && version == .http1_1 { return .failure(.missingHost) }

        var framing = Framing.none
        if !transferEncodings.isEmpty {
            if version == .http1_0 { return .failure(.transferEncodingInHTTP10) }
            if sawContentLength { return .failure(.contentLengthWithTransferEncoding) }
            let codings = transferEncodings.flatMap { $0.split(separator: ",") }
                .map { $0.trimmingOWS().lowercased() }.filter { !$0.isEmpty }
            guard let last = codings.last else { return .failure(.invalidTransferEncoding("empty")) }
            if let other = codings.first(where: { $0 != "chunked" }) {
                // A coding we do not implement: 501, unless the framing itself is already broken.
                return .failure(last == "chunked" ? .unsupportedTransferCoding(other) : .invalidTransferEncoding("chunked must be the final coding"))
            }
            if codings.count > 1 { return .failure(.invalidTransferEncoding("chunked applied more than once")) }
            framing = .chunked
        } else if sawContentLength {
            if let contentLengthError { return .failure(contentLengthError) }
            guard let length = contentLength else { return .failure(.invalidContentLength) }
            if length > limits.maxBodyBytes { return .failure(.bodyTooLarge(limit: limits.maxBodyBytes)) }
            framing = length > 0 ? .length(length) : .none
        }

        var expectsContinue = false
        if let expectation {
            guard expectation.trimmingOWS().lowercased() == "100-continue" else {
                return .failure(.unsupportedExpectation(expectation))
            }
            // A 1.0 client cannot understand 100 Continue (RFC 9110 §10.1.1); it sends the body anyway.
            expectsContinue = version == .http1_1
            if case .none = framing { expectsContinue = false }
        }

        let keepAlive = version == .http1_1 ? !connectionClose : (connectionKeepAlive && !connectionClose)

        let request: HTTPRequest
        let text = headers.bytes
        switch decodeTarget(targetBytes, text: text, method: method) {
        case .success(let (path, query)):
            request = HTTPRequest(method: method, text: text, targetEnd: targetBytes.count, path: path, query: query, version: version, headers: headers)
        case .failure(let error):
            return .failure(error)
        }
        return .success(FramedHead(request: request, keepAlive: keepAlive, framing: framing, expectsContinue: expectsContinue))
    }

    private static func malformed(_ rest: Slice<UnsafeBufferPointer<UInt8>>) -> HTTPParseError {
        if rest.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            return rest.contains(0x0D) ? .bareCarriageReturn : .controlCharacter
        }
        return .malformedRequestLine("expected single spaces between method, target and version")
    }

    private static func parseVersion(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<HTTPVersion, HTTPParseError> {
        guard bytes.count == 8, bytes[0] == UInt8(ascii: "H"), bytes[1] == UInt8(ascii: "T"), bytes[2] == UInt8(ascii: "T"),
            bytes[3] == UInt8(ascii: "P"), bytes[4] == UInt8(ascii: "/"), bytes[6] == UInt8(ascii: "."),
            bytes[5] >= 0x30 && bytes[5] <= 0x39, bytes[7] >= 0x30 && bytes[7] <= 0x39
        else {
            if bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
                return .failure(bytes.contains(0x0D) ? .bareCarriageReturn : .controlCharacter)
            }
            return .failure(.malformedRequestLine("invalid HTTP version"))
        }
        switch (bytes[5], bytes[7]) {
        case (UInt8(ascii: "1"), UInt8(ascii: "1")): return .success(.http1_1)
        case (UInt8(ascii: "1"), UInt8(ascii: "0")): return .success(.http1_0)
        default: return .failure(.unsupportedVersion(string(bytes)))
        }
    }

    /// Reads a `Content-Length` value's comma-separated members (each OWS-trimmed, 1–18 digits): the length they all
    /// give, or the first problem in order — a member that is not a length, or one that differs from the others.
    static func readContentLength(_ value: UnsafeBufferPointer<UInt8>, into length: inout Int?, error: inout HTTPParseError?) {
        guard error == nil else { return }
        _ = FieldList.anyMember(value) { member in
            var parsed = 0
            var valid = !member.isEmpty && member.count <= 18
            for byte in member where valid {
                valid = byte >= 0x30 && byte <= 0x39
                parsed = parsed * 10 + Int(byte &- 0x30)
            }
            if !valid {
                error = .invalidContentLength
            } else if let length, length != parsed {
                error = .conflictingContentLengths
            } else {
                length = parsed
            }
            return error != nil
        }
    }

    /// Whether a `Connection` value names `close` or `keep-alive` (tokens compared without case, OWS around commas).
    static func connectionTokens(_ value: UnsafeBufferPointer<UInt8>) -> (close: Bool, keepAlive: Bool) {
        var close = false, keepAlive = false
        _ = FieldList.anyMember(value) { token in
            if equalFolded(token, "close") { close = true } else if equalFolded(token, "keep-alive") { keepAlive = true }
            return false
        }
        return (close, keepAlive)
    }

    /// Byte-for-byte comparison with a literal (methods are case-sensitive).
    static func equalExactly(_ bytes: UnsafeBufferPointer<UInt8>, _ literal: StaticString) -> Bool {
        bytes.elementsEqual(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    /// ASCII case-insensitive comparison of bytes with a lower-case literal.
    static func equalFolded(_ bytes: UnsafeBufferPointer<UInt8>, _ lower: StaticString) -> Bool {
        HTTPHeaders.equalFolded(bytes, UnsafeBufferPointer(start: lower.utf8Start, count: lower.utf8CodeUnitCount))
    }

    /// Where a field line's name ends and its value (without the OWS around it) lies.
    struct FieldSpan {
        var nameEnd: Int
        var valueStart: Int
        var valueEnd: Int
    }

    /// `field-name ":" OWS field-value OWS`.
    static func parseField(_ line: UnsafeBufferPointer<UInt8>) -> Result<FieldSpan, HTTPParseError> {
        guard let first = line.first else { return .failure(.invalidHeaderField("empty line")) }
        if first == 0x20 || first == 0x09 { return .failure(.obsoleteLineFolding) }
        var colon = 0
        while colon < line.count && isTokenByte(line[colon]) { colon += 1 }
        guard colon < line.count else { return .failure(.invalidHeaderField("missing colon")) }
        switch line[colon] {
        case UInt8(ascii: ":"): break
        case 0x20, 0x09: return .failure(.whitespaceBeforeColon)
        case 0x0D: return .failure(.bareCarriageReturn)
        case let byte where byte < 0x20 || byte == 0x7F: return .failure(.controlCharacter)
        default: return .failure(.invalidHeaderField("invalid character in field name"))
        }
        guard colon > 0 else { return .failure(.invalidHeaderField("empty field name")) }
        var valueStart = colon + 1
        var valueEnd = line.count
        if let control = firstControl(line, from: valueStart) {
            return .failure(control == 0x0D ? .bareCarriageReturn : .controlCharacter)
        }
        while valueStart < valueEnd && (line[valueStart] == 0x20 || line[valueStart] == 0x09) { valueStart += 1 }
        while valueEnd > valueStart && (line[valueEnd - 1] == 0x20 || line[valueEnd - 1] == 0x09) { valueEnd -= 1 }
        return .success(FieldSpan(nameEnd: colon, valueStart: valueStart, valueEnd: valueEnd))
    }

    /// The first byte from `start` on that a field value may not hold (a control character other than HTAB, or DEL),
    /// looked for sixteen bytes at a time with the CPU's vector compares: a value is mostly long tokens (Supabase's two
    /// JWTs are ~600 bytes a request; eight bytes at a time in general-purpose registers was 2,000 instructions of it).
    static func firstControl(_ line: UnsafeBufferPointer<UInt8>, from start: Int) -> UInt8? {
        guard let base = line.baseAddress else { return nil }
        var index = start
        let space = SIMD16<UInt8>(repeating: 0x20), delete = SIMD16<UInt8>(repeating: 0x7F)
        while index + 16 <= line.count {
            let bytes = UnsafeRawPointer(base + index).loadUnaligned(as: SIMD16<UInt8>.self)
            // A tab also lands here and is judged a byte at a time below.
            if ByteScan.anySet((bytes .< space) .| (bytes .== delete)) { break }
            index += 16
        }
        while index < line.count {
            let byte = line[index]
            if byte < 0x20 && byte != 0x09 || byte == 0x7F { return byte }
            index += 1
        }
        return nil
    }

    /// Whether a trailer line is a well-formed field line.
    static func isValidFieldLine(_ line: UnsafeBufferPointer<UInt8>) -> Bool {
        if case .success = parseField(line) { return true }
        return false
    }

    /// ``decodeTarget(_:method:)`` with the common case first: an origin-form target (`bytes`, lying at the start of
    /// `text`) is split at its bytes, its path decoded from them only when escaped (a Wikipedia title's escapes: through
    /// `Substring`s it was a fifth of the answer), else left where it lies, and its query read where it lies.
    static func decodeTarget(
        _ bytes: UnsafeBufferPointer<UInt8>, text: [UInt8], method: HTTPMethod
    ) -> Result<(HTTPRequest.PathText, QueryParameters), HTTPParseError> {
        guard bytes.first == UInt8(ascii: "/") else {
            return decodeTarget(string(bytes), method: method).map { (.decoded($0.0), $0.1) }
        }
        let mark = ByteScan.first(UInt8(ascii: "?"), in: bytes)
        let rawPath = UnsafeBufferPointer(rebasing: bytes[0..<mark])
        var query = QueryParameters()
        if mark < bytes.count {
            // The query is judged first, as the general path does: a target broken in both is refused for its query.
            guard let parsed = QueryParameters(text: text, range: (mark + 1)..<bytes.count) else {
                return .failure(.invalidTarget("malformed percent-encoding in query"))
            }
            query = parsed
        }
        guard ByteScan.first(UInt8(ascii: "%"), in: rawPath) < mark else { return .success((.inTarget(end: mark), query)) }
        guard let path = PercentDecoding.decode(rawPath, plusIsSpace: false) else {
            return .failure(.invalidTarget("malformed percent-encoding in path"))
        }
        return .success((.decoded(path), query))
    }

    /// Splits the target into a decoded path and query; accepts origin-form, absolute-form and `*`.
    static func decodeTarget(_ target: String, method: HTTPMethod) -> Result<(String, QueryParameters), HTTPParseError> {
        var pathAndQuery = Substring(target)
        if target == "*" {
            guard method == .options else { return .failure(.invalidTarget("* is only valid for OPTIONS")) }
            return .success(("*", QueryParameters()))
        }
        if target.utf8.first != UInt8(ascii: "/") {
            // absolute-form (RFC 9112 §3.2.2): servers must accept it; the authority is ignored.
            let lowered = target.lowercased()
            let scheme = lowered.hasPrefix("http://") ? 7 : lowered.hasPrefix("https://") ? 8 : 0
            guard scheme > 0 else { return .failure(.invalidTarget("must start with /")) }
            let afterAuthority = target.dropFirst(scheme)
            if let slash = afterAuthority.firstIndex(where: { $0 == "/" || $0 == "?" }) {
                pathAndQuery = afterAuthority[slash...]
                if pathAndQuery.first == "?" { pathAndQuery = "/" + pathAndQuery }
            } else {
                pathAndQuery = "/"
            }
        }
        let rawPath: Substring
        var query = QueryParameters()
        // The target is ASCII (``parse`` refused anything else): split at the byte, no grapheme breaking.
        if let mark = pathAndQuery.utf8.firstIndex(of: UInt8(ascii: "?")) {
            rawPath = pathAndQuery[..<mark]
            guard let parsed = QueryParameters(raw: pathAndQuery[pathAndQuery.utf8.index(after: mark)...]) else {
                return .failure(.invalidTarget("malformed percent-encoding in query"))
            }
            query = parsed
        } else {
            rawPath = pathAndQuery
        }
        guard let path = PercentDecoding.decode(rawPath, plusIsSpace: false) else {
            return .failure(.invalidTarget("malformed percent-encoding in path"))
        }
        return .success((path, query))
    }

    static func string(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(decoding: bytes, as: UTF8.self)
    }
}

extension StringProtocol {
    /// Trims optional whitespace (SP and HTAB) from both ends.
    func trimmingOWS() -> Substring {
        var slice = self[...]
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return Substring(slice)
    }
}
