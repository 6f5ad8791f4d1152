/// A complete upstream answer with a 2xx status.
public struct UpstreamResponse: Sendable {
    public var status: Int
    /// The body after content decoding (gzip is undone by libcurl).
    public var body: [UInt8]
    public var contentType: String?

    public init(status: Int, body: [UInt8], contentType: String?) {
        self.status = status
        self.body = body
        self.contentType = contentType
    }
}
