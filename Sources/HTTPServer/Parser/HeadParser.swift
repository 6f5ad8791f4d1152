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

    /// `tchar` from RFC 9110 §5.6.2, as a 256-entry table.
    static let isTokenByte: [Bool] = (0..<256).map { value in
        let byte = UInt8(value)
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"):
            return true
        default:
            return "!#$%&'*+-.^_`|~".utf8.contains(byte)
        }
    }

    /// `fieldCount`: how many field lines the head holds, as the caller counted them (room is made once).
    static func parse(
        _ head: UnsafeBufferPointer<UInt8>, requestLineEnd: Int, fieldCount: Int, limits: ParserLimits
    ) -> Result<FramedHead, HTTPParseError> {
        // Request line: method SP request-target SP HTTP-version
        let line = UnsafeBufferPointer(rebasing: head[0..<requestLineEnd])
        var methodEnd = 0
        while methodEnd < line.count && isTokenByte[Int(line[methodEnd])] { methodEnd += 1 }
        guard methodEnd > 0 else { return .failure(.malformedRequestLine("missing method")) }
        guard methodEnd < line.count && line[methodEnd] == 0x20 else {
            return .failure(malformed(line[methodEnd...]))
        }
        let targetStart = methodEnd + 1
        var targetEnd = targetStart
        while targetEnd < line.count && line[targetEnd] > 0x20 && line[targetEnd] < 0x7F { targetEnd += 1 }
        guard targetEnd > targetStart else { return .failure(malformed(line[targetStart...])) }
        guard targetEnd < line.count && line[targetEnd] == 0x20 else { return .failure(malformed(line[targetEnd...])) }
        let versionBytes = UnsafeBufferPointer(rebasing: line[(targetEnd + 1)...])
        let version: HTTPVersion
        switch parseVersion(versionBytes) {
        case .success(let parsed): version = parsed
        case .failure(let error): return .failure(error)
        }
        let method = HTTPMethod(string(UnsafeBufferPointer(rebasing: line[0..<methodEnd])))
        let target = string(UnsafeBufferPointer(rebasing: line[targetStart..<targetEnd]))

        // Header fields
        var headers = HTTPHeaders()
        var hosts = 0
        var contentLengths: [Substring] = []
        var transferEncodings: [String] = []
        var connectionClose = false
        var connectionKeepAlive = false
        var expectation: String? = nil
        var fields: [(name: String, value: String)] = []
        fields.reserveCapacity(fieldCount)
        var index = requestLineEnd + 2
        let end = head.count - 2
        while index < end {
            var lineEnd = index
            while head[lineEnd] != 0x0D || head[lineEnd + 1] != 0x0A { lineEnd += 1 }
            let fieldLine = UnsafeBufferPointer(rebasing: head[index..<lineEnd])
            let field: (name: String, value: String)
            switch parseField(fieldLine) {
            case .success(let parsed): field = parsed
            case .failure(let error): return .failure(error)
            }
            switch field.name {
            case "host": hosts += 1
            case "content-length":
                if field.value.utf8.contains(UInt8(ascii: ",")) {
                    contentLengths.append(contentsOf: field.value.split(separator: ",", omittingEmptySubsequences: false))
                } else {
                    contentLengths.append(field.value[...])
                }
            case "transfer-encoding": transferEncodings.append(field.value)
            case "connection":
                for token in field.value.split(separator: ",") {
                    let token = token.trimmingOWS().lowercased()
                    if token == "close" { connectionClose = true } else if token == "keep-alive" { connectionKeepAlive = true }
                }
            case "expect": expectation = field.value
            default: break
            }
            fields.append(field)
            index = lineEnd + 2
        }
        headers = HTTPHeaders(fields)

        if hosts > 1 { return .failure(.multipleHosts) }
        if hosts == 0 && version == .http1_1 { return .failure(.missingHost) }

        var framing = Framing.none
        if !transferEncodings.isEmpty {
            if version == .http1_0 { return .failure(.transferEncodingInHTTP10) }
            if !contentLengths.isEmpty { return .failure(.contentLengthWithTransferEncoding) }
            let codings = transferEncodings.flatMap { $0.split(separator: ",") }
                .map { $0.trimmingOWS().lowercased() }.filter { !$0.isEmpty }
            guard let last = codings.last else { return .failure(.invalidTransferEncoding("empty")) }
            if let other = codings.first(where: { $0 != "chunked" }) {
                // A coding we do not implement: 501, unless the framing itself is already broken.
                return .failure(last == "chunked" ? .unsupportedTransferCoding(other) : .invalidTransferEncoding("chunked must be the final coding"))
            }
            if codings.count > 1 { return .failure(.invalidTransferEncoding("chunked applied more than once")) }
            framing = .chunked
        } else if !contentLengths.isEmpty {
            var length: Int? = nil
            for value in contentLengths {
                let digits = value.trimmingOWS()
                guard !digits.isEmpty, digits.utf8.count <= 18, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                    let parsed = Int(digits)
                else { return .failure(.invalidContentLength) }
                if let length, length != parsed { return .failure(.conflictingContentLengths) }
                length = parsed
            }
            guard let length else { return .failure(.invalidContentLength) }
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
        switch decodeTarget(target, method: method) {
        case .success(let (path, query)):
            request = HTTPRequest(method: method, target: target, path: path, query: query, version: version, headers: headers)
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
        let prefix = Array("HTTP/".utf8)
        guard bytes.count == 8, bytes.starts(with: prefix), bytes[6] == UInt8(ascii: "."),
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

    /// `field-name ":" OWS field-value OWS`; the name is folded to lower case.
    static func parseField(_ line: UnsafeBufferPointer<UInt8>) -> Result<(name: String, value: String), HTTPParseError> {
        guard let first = line.first else { return .failure(.invalidHeaderField("empty line")) }
        if first == 0x20 || first == 0x09 { return .failure(.obsoleteLineFolding) }
        var colon = 0
        while colon < line.count && isTokenByte[Int(line[colon])] { colon += 1 }
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
        let name = String(unsafeUninitializedCapacity: colon) { out in
            for index in 0..<colon {
                let byte = line[index]
                out[index] = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            }
            return colon
        }
        return .success((name, string(UnsafeBufferPointer(rebasing: line[valueStart..<valueEnd]))))
    }

    /// The first byte from `start` on that a field value may not hold (a control character other than HTAB, or DEL),
    /// looked for eight bytes at a time: a value is mostly long tokens (Supabase's two JWTs are ~600 bytes a request).
    static func firstControl(_ line: UnsafeBufferPointer<UInt8>, from start: Int) -> UInt8? {
        guard let base = line.baseAddress else { return nil }
        var index = start
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        while index + 8 <= line.count {
            let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
            let delete = word ^ (0x7F * ones)
            // A byte below 0x20, or equal to 0x7F (the classic "has a byte less than n" and "has a zero byte" tests);
            // a tab also lands here and is judged a byte at a time below.
            if (word &- 0x20 &* ones) & ~word & highs != 0 || (delete &- ones) & ~delete & highs != 0 { break }
            index += 8
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
