/// Size limits enforced while parsing, defaults from the contract.
public struct ParserLimits: Sendable, Equatable {
    /// Longest request line (`414` beyond).
    public var maxRequestLineBytes: Int
    /// Largest header block after the request line (`431` beyond).
    public var maxHeaderBytes: Int
    /// Most header fields (`431` beyond).
    public var maxHeaderCount: Int
    /// Largest request body (`413` beyond).
    public var maxBodyBytes: Int

    public init(
        maxRequestLineBytes: Int = 8 * 1024, maxHeaderBytes: Int = 16 * 1024, maxHeaderCount: Int = 100,
        maxBodyBytes: Int = 1024 * 1024
    ) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
    }
}
