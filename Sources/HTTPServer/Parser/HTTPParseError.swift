/// Why a request could not be parsed. Every case ends the connection after the error response.
public enum HTTPParseError: Error, Equatable, Sendable {
    case requestLineTooLong(limit: Int)
    case headerBlockTooLarge(limit: Int)
    case tooManyHeaderFields(limit: Int)
    case bodyTooLarge(limit: Int)
    case malformedRequestLine(String)
    case unsupportedVersion(String)
    case invalidTarget(String)
    case invalidHeaderField(String)
    case bareLineFeed
    case bareCarriageReturn
    case controlCharacter
    case obsoleteLineFolding
    case whitespaceBeforeColon
    case missingHost
    case multipleHosts
    case contentLengthWithTransferEncoding
    case invalidContentLength
    case conflictingContentLengths
    case transferEncodingInHTTP10
    case invalidTransferEncoding(String)
    case unsupportedTransferCoding(String)
    case invalidChunk(String)
    case unsupportedExpectation(String)

    /// The status this error is answered with.
    public var status: HTTPStatus {
        switch self {
        case .requestLineTooLong: .uriTooLong
        case .headerBlockTooLarge, .tooManyHeaderFields: .headerFieldsTooLarge
        case .bodyTooLarge: .contentTooLarge
        case .unsupportedVersion: .httpVersionNotSupported
        case .unsupportedTransferCoding: .notImplemented
        case .unsupportedExpectation: .expectationFailed
        default: .badRequest
        }
    }

    /// One sentence for the `{"error": …}` body.
    public var message: String {
        switch self {
        case .requestLineTooLong(let limit): "request line is longer than \(limit) bytes"
        case .headerBlockTooLarge(let limit): "header block is larger than \(limit) bytes"
        case .tooManyHeaderFields(let limit): "request has more than \(limit) header fields"
        case .bodyTooLarge(let limit): "request body is larger than \(limit) bytes"
        case .malformedRequestLine(let why): "malformed request line: \(why)"
        case .unsupportedVersion(let version): "HTTP version \(version) is not supported"
        case .invalidTarget(let why): "invalid request target: \(why)"
        case .invalidHeaderField(let why): "invalid header field: \(why)"
        case .bareLineFeed: "line ends with LF without CR"
        case .bareCarriageReturn: "CR not followed by LF"
        case .controlCharacter: "control character in request head"
        case .obsoleteLineFolding: "obsolete line folding is not accepted"
        case .whitespaceBeforeColon: "whitespace between header name and colon"
        case .missingHost: "HTTP/1.1 request without Host header"
        case .multipleHosts: "more than one Host header"
        case .contentLengthWithTransferEncoding: "both Content-Length and Transfer-Encoding sent"
        case .invalidContentLength: "Content-Length is not a valid length"
        case .conflictingContentLengths: "differing Content-Length values"
        case .transferEncodingInHTTP10: "Transfer-Encoding in an HTTP/1.0 request"
        case .invalidTransferEncoding(let why): "invalid Transfer-Encoding: \(why)"
        case .unsupportedTransferCoding(let coding): "transfer coding \(coding) is not supported"
        case .invalidChunk(let why): "invalid chunked body: \(why)"
        case .unsupportedExpectation(let value): "expectation \(value) is not supported"
        }
    }
}
