import HTTPServer

// The HTTP/1.1 request parser (head, fixed and chunked bodies, limits) fed the same bytes twice: whole, and
// cut into pieces whose sizes come from the input itself. Properties: the two runs give the same requests and
// the same error (parsing never depends on how the bytes arrived), input is consumed monotonically and never
// beyond what was given, and every accepted request respects the limits. The one allowed difference is
// `100 Continue`: it is asked for only while the body has not arrived yet (RFC 9110 §10.1.1 lets a server
// omit it when the content is already there), so it may appear in the split run alone, at most once per request
// (the last one possibly for a request whose body the input never delivered).

private let limits = ParserLimits(maxRequestLineBytes: 256, maxHeaderBytes: 1024, maxHeaderCount: 16, maxBodyBytes: 512)

/// The parser's events for `input` delivered in pieces of the given sizes (the rest in one piece).
private func events(_ input: [UInt8], pieces: [Int]) -> [String] {
    var parser = RequestParser(limits: limits)
    var buffer = InputBuffer()
    var out: [String] = []
    var offset = 0
    var sizes = pieces.makeIterator()
    while offset < input.count {
        let size = min(input.count - offset, max(1, sizes.next() ?? input.count))
        buffer.append(contentsOf: input[offset..<offset + size])
        offset += size
        drain: while true {
            let before = buffer.count
            let event = parser.next(from: &buffer)
            precondition(buffer.count <= before, "the parser consumed negatively")
            switch event {
            case .needMore:
                break drain
            case .continueNeeded:
                out.append("continue")
            case .request(let request, let keepAlive):
                precondition(request.target.utf8.count <= limits.maxRequestLineBytes, "a request line over the limit was accepted")
                precondition(request.body.count <= limits.maxBodyBytes, "a body over the limit was accepted")
                precondition(request.headers.count <= limits.maxHeaderCount, "too many fields were accepted")
                out.append("\(request.method) \(request.target) \(request.version) \(request.headers.count) \(request.body) \(keepAlive)")
            case .error(let error):
                out.append("error \(error.status.code)")
                return out  // the connection closes after an error
            }
        }
    }
    return out
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let seed = bytes.first else { return 0 }
    let input = Array(bytes.dropFirst())
    let pieces = (0..<64).map { Int((UInt32(seed) &* 2_654_435_761 &+ UInt32($0) &* 40_503) >> 27) + 1 }
    let whole = events(input, pieces: [])
    let split = events(input, pieces: pieces)
    let requests = { (events: [String]) in events.filter { $0 != "continue" } }
    precondition(requests(whole) == requests(split), "split-dependent parse:\n\(whole)\n\(split)")
    // At most one `100 Continue` per request: never two without a request between them (the last may belong to a
    // request whose body never came: the input ended first).
    for (earlier, later) in zip(split, split.dropFirst()) where earlier == "continue" && later == "continue" {
        preconditionFailure("two 100 Continue for one request: \(split)")
    }
    return 0
}
