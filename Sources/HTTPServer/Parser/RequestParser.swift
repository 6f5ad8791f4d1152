import Glibc

/// An incremental, strict HTTP/1.1 request parser (RFC 9112).
///
/// Feed it an ``InputBuffer`` as bytes arrive, split anywhere; each call to ``next(from:)`` consumes what it
/// can and reports one event. The scan for the end of the head resumes where it stopped, so a head that
/// trickles in one byte at a time is still parsed in linear time.
public struct RequestParser: Sendable {
    /// What one call to ``next(from:)`` produced.
    public enum Event: Sendable {
        /// A complete request; `keepAlive` says whether the connection may carry another one.
        case request(HTTPRequest, keepAlive: Bool)
        /// The head asked for `Expect: 100-continue` and the body has not arrived: send `100 Continue`.
        case continueNeeded
        /// Not enough bytes yet.
        case needMore
        /// The request is malformed; answer with the error's status and close.
        case error(HTTPParseError)
    }

    private struct Head: Sendable {
        var request: HTTPRequest
        var keepAlive: Bool
    }

    private enum ChunkPhase: Sendable {
        case size
        case data(remaining: Int)
        case dataEnd
        case trailer(bytes: Int)
    }

    private enum State: Sendable {
        /// Scanning for the end of the head; offsets are relative to the buffer's front.
        case head(scanned: Int, lineStart: Int, requestLineEnd: Int?, fields: Int)
        case fixedBody(Head, remaining: Int)
        case chunkedBody(Head, ChunkPhase)
    }

    public let limits: ParserLimits
    private var state: State = .head(scanned: 0, lineStart: 0, requestLineEnd: nil, fields: 0)

    public init(limits: ParserLimits = ParserLimits()) {
        self.limits = limits
    }

    /// True between requests: nothing of a next request has been seen.
    public var isIdle: Bool {
        if case .head(let scanned, _, _, _) = state { return scanned == 0 }
        return false
    }

    /// True once the head is parsed and the body is being read.
    public var isReadingBody: Bool {
        if case .head = state { return false }
        return true
    }

    /// Consumes bytes from `buffer` and returns the next event.
    public mutating func next(from buffer: inout InputBuffer) -> Event {
        switch state {
        case .head:
            return parseHead(&buffer)
        case .fixedBody(var head, let remaining):
            let take = min(remaining, buffer.count)
            if take > 0 {
                head.request.body.append(contentsOf: buffer.bytes(0..<take))
                buffer.consume(take)
            }
            if remaining - take == 0 {
                return finish(head)
            }
            state = .fixedBody(head, remaining: remaining - take)
            return .needMore
        case .chunkedBody(let head, let phase):
            return parseChunked(&buffer, head: head, phase: phase)
        }
    }

    private mutating func finish(_ head: Head) -> Event {
        state = .head(scanned: 0, lineStart: 0, requestLineEnd: nil, fields: 0)
        return .request(head.request, keepAlive: head.keepAlive)
    }

    // MARK: - Head

    private mutating func parseHead(_ buffer: inout InputBuffer) -> Event {
        guard case .head(var scanned, var lineStart, var requestLineEnd, var fields) = state else { return .needMore }
        // RFC 9112 §2.2: ignore empty lines before the request line (clients sometimes send a stray CRLF
        // after a POST body).
        if scanned == 0 {
            while buffer.count >= 2 && buffer[0] == 0x0D && buffer[1] == 0x0A { buffer.consume(2) }
            if buffer.count == 1 && buffer[0] == 0x0D { return .needMore }
            if buffer.count >= 1 && buffer[0] == 0x0A { return .error(.bareLineFeed) }
        }
        let limits = self.limits
        var headEnd: Int? = nil
        let scanError: HTTPParseError? = buffer.withUnsafeBytes { bytes in
            guard let base = bytes.baseAddress else { return nil }
            var i = scanned
            while i < bytes.count {
                guard let found = memchr(base + i, 0x0A, bytes.count - i) else {
                    i = bytes.count
                    break
                }
                let lf = UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - base
                // Too long is decided first, by the same count as when the line arrives in pieces (below),
                // so the answer never depends on how the bytes were split.
                if requestLineEnd == nil && lf > limits.maxRequestLineBytes + 1 {
                    return .requestLineTooLong(limit: limits.maxRequestLineBytes)
                }
                // Likewise a header block already over its limit where this line ends is 431 before the line
                // is judged: arriving in pieces, the same bytes are refused as soon as the limit is passed.
                if let end = requestLineEnd, lf - end > limits.maxHeaderBytes + 4 {
                    return .headerBlockTooLarge(limit: limits.maxHeaderBytes)
                }
                if lf == 0 || bytes[lf - 1] != 0x0D { return .bareLineFeed }
                if requestLineEnd == nil {
                    if lf - 1 > limits.maxRequestLineBytes { return .requestLineTooLong(limit: limits.maxRequestLineBytes) }
                    requestLineEnd = lf - 1
                } else if lf - 1 == lineStart {
                    headEnd = lf + 1
                    i = lf + 1
                    break
                } else {
                    fields += 1
                    if fields > limits.maxHeaderCount { return .tooManyHeaderFields(limit: limits.maxHeaderCount) }
                }
                lineStart = lf + 1
                i = lf + 1
            }
            scanned = i
            if requestLineEnd == nil && bytes.count > limits.maxRequestLineBytes + 1 {
                return .requestLineTooLong(limit: limits.maxRequestLineBytes)
            }
            let headerBytes = (headEnd ?? bytes.count) - (requestLineEnd ?? 0)
            if headerBytes > limits.maxHeaderBytes + 4 {
                return .headerBlockTooLarge(limit: limits.maxHeaderBytes)
            }
            return nil
        }
        if let scanError { return .error(scanError) }
        guard let headEnd, let requestLineEnd else {
            state = .head(scanned: scanned, lineStart: lineStart, requestLineEnd: requestLineEnd, fields: fields)
            return .needMore
        }
        let parsed = buffer.withUnsafeBytes { bytes in
            HeadParser.parse(
                UnsafeBufferPointer(rebasing: bytes[0..<headEnd]), requestLineEnd: requestLineEnd, fieldCount: fields, limits: limits)
        }
        buffer.consume(headEnd)
        state = .head(scanned: 0, lineStart: 0, requestLineEnd: nil, fields: 0)
        switch parsed {
        case .failure(let error):
            return .error(error)
        case .success(let framed):
            // A body that arrived whole with its head (a small POST: most) finishes the request here, without the
            // request copied into the body's state and out of it again.
            if case .length(let length) = framed.framing, buffer.count >= length {
                let keepAlive = framed.keepAlive
                var request = (consume framed).request
                request.body = Array(buffer.bytes(0..<length))
                buffer.consume(length)
                return .request(request, keepAlive: keepAlive)
            }
            let head = Head(request: framed.request, keepAlive: framed.keepAlive)
            switch framed.framing {
            case .none:
                return finish(head)
            case .length(let length):
                state = .fixedBody(head, remaining: length)
            case .chunked:
                state = .chunkedBody(head, .size)
            }
            if framed.expectsContinue && buffer.isEmpty {
                return .continueNeeded
            }
            return next(from: &buffer)
        }
    }

    // MARK: - Chunked body

    private static let maxChunkLine = 4096

    private mutating func parseChunked(_ buffer: inout InputBuffer, head: Head, phase: ChunkPhase) -> Event {
        var head = head
        var phase = phase
        while true {
            switch phase {
            case .size:
                guard let line = Self.line(in: buffer, limit: Self.maxChunkLine) else {
                    state = .chunkedBody(head, phase)
                    return buffer.count > Self.maxChunkLine ? .error(.invalidChunk("chunk size line too long")) : .needMore
                }
                guard case .success(let lineEnd) = line else {
                    if case .failure(let error) = line { return .error(error) }
                    return .needMore
                }
                let size: Int
                switch buffer.withUnsafeBytes({ Self.chunkSize(UnsafeBufferPointer(rebasing: $0[0..<lineEnd])) }) {
                case .success(let value): size = value
                case .failure(let error): return .error(error)
                }
                buffer.consume(lineEnd + 2)
                if size == 0 {
                    phase = .trailer(bytes: 0)
                } else {
                    if head.request.body.count + size > limits.maxBodyBytes {
                        return .error(.bodyTooLarge(limit: limits.maxBodyBytes))
                    }
                    phase = .data(remaining: size)
                }
            case .data(let remaining):
                let take = min(remaining, buffer.count)
                if take > 0 {
                    head.request.body.append(contentsOf: buffer.bytes(0..<take))
                    buffer.consume(take)
                }
                if take < remaining {
                    state = .chunkedBody(head, .data(remaining: remaining - take))
                    return .needMore
                }
                phase = .dataEnd
            case .dataEnd:
                guard buffer.count >= 2 else {
                    state = .chunkedBody(head, phase)
                    if buffer.count == 1 && buffer[0] != 0x0D { return .error(.invalidChunk("chunk data not followed by CRLF")) }
                    return .needMore
                }
                guard buffer[0] == 0x0D && buffer[1] == 0x0A else {
                    return .error(.invalidChunk("chunk data not followed by CRLF"))
                }
                buffer.consume(2)
                phase = .size
            case .trailer(let bytes):
                // The section's limit is decided by where a line's LF falls, before the line is judged, so that
                // the answer is the same however the bytes arrive: in pieces, any prefix past the limit without
                // its LF is already refused.
                let room = max(0, limits.maxHeaderBytes - bytes)
                guard let lf = Self.lineFeed(in: buffer, within: room + 1) else {
                    state = .chunkedBody(head, phase)
                    return bytes + buffer.count > limits.maxHeaderBytes
                        ? .error(.headerBlockTooLarge(limit: limits.maxHeaderBytes)) : .needMore
                }
                guard lf > 0 && buffer[lf - 1] == 0x0D else { return .error(.bareLineFeed) }
                let lineEnd = lf - 1
                if lineEnd == 0 {
                    buffer.consume(2)
                    return finish(head)
                }
                // Trailer fields are read for framing and discarded: no handler relies on them.
                let valid = buffer.withUnsafeBytes { bytes in
                    HeadParser.isValidFieldLine(UnsafeBufferPointer(rebasing: bytes[0..<lineEnd]))
                }
                guard valid else { return .error(.invalidChunk("malformed trailer field")) }
                buffer.consume(lineEnd + 2)
                if bytes + lineEnd + 2 > limits.maxHeaderBytes {
                    return .error(.headerBlockTooLarge(limit: limits.maxHeaderBytes))
                }
                phase = .trailer(bytes: bytes + lineEnd + 2)
            }
        }
    }

    /// The index of the first LF among the buffer's first `window` bytes.
    private static func lineFeed(in buffer: InputBuffer, within window: Int) -> Int? {
        buffer.withUnsafeBytes { bytes -> Int? in
            guard let base = bytes.baseAddress, let found = memchr(base, 0x0A, min(bytes.count, window)) else { return nil }
            return UnsafeRawPointer(found).assumingMemoryBound(to: UInt8.self) - base
        }
    }

    /// Finds the next CRLF-terminated line at the front; returns the index of its CR, nil when incomplete.
    private static func line(in buffer: InputBuffer, limit: Int) -> Result<Int, HTTPParseError>? {
        guard let lf = lineFeed(in: buffer, within: limit + 2) else { return nil }
        guard lf > 0 && buffer[lf - 1] == 0x0D else { return .failure(.bareLineFeed) }
        return .success(lf - 1)
    }

    /// `chunk-size [ chunk-ext ]`: hex digits, then optionally `;name[=value]` parts (ignored).
    private static func chunkSize(_ line: UnsafeBufferPointer<UInt8>) -> Result<Int, HTTPParseError> {
        var size = 0
        var index = 0
        while index < line.count, let digit = PercentDecoding.hexValue(line[index]) {
            guard index < 15 else { return .failure(.invalidChunk("chunk size too large")) }
            size = size << 4 | Int(digit)
            index += 1
        }
        guard index > 0 else { return .failure(.invalidChunk("chunk size is not hexadecimal")) }
        // Only whitespace then `;` may follow the size; extensions must be printable.
        var sawSemicolon = false
        while index < line.count {
            let byte = line[index]
            if byte == UInt8(ascii: ";") {
                sawSemicolon = true
            } else if byte == 0x20 || byte == 0x09 {
                // BWS around extensions
            } else if !sawSemicolon || byte < 0x21 || byte == 0x7F {
                return .failure(.invalidChunk("unexpected byte after chunk size"))
            }
            index += 1
        }
        return .success(size)
    }
}
