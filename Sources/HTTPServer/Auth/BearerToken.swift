/// Checks `Authorization: Bearer <token>` against a configured secret without leaking, through timing, how
/// much of a guess was right.
public struct BearerToken: Sendable {
    public enum Verdict: Sendable, Equatable {
        case allowed
        /// No secret is configured: the route is switched off (`403`).
        case disabled
        /// Missing, malformed or wrong credentials (`401` with `WWW-Authenticate: Bearer`).
        case rejected
    }

    private let secret: [UInt8]?

    /// - Parameter secret: the expected token; `nil` or empty switches the protected routes off.
    public init(secret: String?) {
        self.secret = secret.flatMap { $0.isEmpty ? nil : Array($0.utf8) }
    }

    public func check(_ request: HTTPRequest) -> Verdict {
        guard let secret else { return .disabled }
        guard let field = request.headers["authorization"], let token = Self.credentials(field) else { return .rejected }
        return Self.constantTimeEqual(Array(token.utf8), secret) ? .allowed : .rejected
    }

    /// The token of an `Authorization` value `Bearer <token>` (the scheme in any case, spaces before it skipped, the
    /// token everything after the one space that ends it), nil for another scheme or no token.
    public static func credentials(_ field: String) -> Substring? {
        var text = field
        guard let range = text.withUTF8({ tokenRange(in: $0) }) else { return nil }
        let utf8 = field.utf8
        return Substring(utf8[utf8.index(utf8.startIndex, offsetBy: range.lowerBound)...])
    }

    /// ``credentials(_:)`` of a value's bytes as they lie in the request (``HTTPHeaders/withFirstValue(_:_:)``): the
    /// token's bytes, nothing copied.
    public static func token(in field: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8>? {
        tokenRange(in: field).map { UnsafeBufferPointer(rebasing: field[$0]) }
    }

    /// Walks bytes: a token is long (a JWT on every community call) and splitting it by `Character` broke graphemes for
    /// nothing.
    private static func tokenRange(in field: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        let space = UInt8(ascii: " ")
        guard let start = field.firstIndex(where: { $0 != space }) else { return nil }
        let scheme = field[start...].firstIndex(of: space) ?? field.endIndex
        // ASCII letters: a byte ORed with 0x20 is a lower-case letter only when it was that letter in either case. Compared
        // byte by byte with the literal's bytes (the generic `elementsEqual` of a `String`'s view cost ~350 instructions).
        let bearer: StaticString = "bearer"
        guard scheme - start == bearer.utf8CodeUnitCount, scheme + 1 < field.count else { return nil }
        for offset in 0..<bearer.utf8CodeUnitCount where field[start + offset] | 0x20 != bearer.utf8Start[offset] { return nil }
        return (scheme + 1)..<field.count
    }

    /// The comparison always walks the whole secret, whatever the candidate's length or content. The lengths are
    /// compared whole: a difference of 256 bytes must not vanish in an 8-bit accumulator (it did: the secret
    /// followed by 256 more bytes was accepted).
    public static func constantTimeEqual(_ candidate: [UInt8], _ secret: [UInt8]) -> Bool {
        var difference = UInt(bitPattern: candidate.count ^ secret.count)
        for index in secret.indices {
            let byte = index < candidate.count ? candidate[index] : ~secret[index]
            difference |= UInt(byte ^ secret[index])
        }
        return difference == 0
    }

    /// The answer for a verdict other than `.allowed`; `disabled` says what is switched off, in the route's words.
    public static func response(for verdict: Verdict, disabled: @autoclosure () -> String) -> HTTPResponse? {
        switch verdict {
        case .allowed:
            return nil
        case .disabled:
            return .error(.forbidden, disabled())
        case .rejected:
            return .error(.unauthorized, "a valid bearer token is required", headers: ["WWW-Authenticate": "Bearer"])
        }
    }
}
