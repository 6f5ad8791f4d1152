/// A response as read off the wire by ``RawClient``.
public struct RawResponse: Sendable {
    public var status: Int
    public var reason: String
    /// Header fields as received, names in their original case.
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    /// The first value of a header, matched case-insensitively.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public func headerValues(_ name: String) -> [String] {
        headers.filter { $0.name.lowercased() == name.lowercased() }.map(\.value)
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}
