/// A response encoded once and answered many times, with its entity tag.
///
/// ``response(for:)`` answers a matching `If-None-Match` with `304` (same `ETag` and caching headers, no body).
public struct CachedResponse: Sendable {
    public let response: HTTPResponse
    /// The quoted tag, or `nil` for answers that must not be revalidated (errors).
    public let entityTag: String?

    /// A `200` JSON answer; the tag is computed from `body` and added to `headers`.
    public init(json body: [UInt8], headers: HTTPHeaders) {
        let tag = EntityTag.make(for: body)
        var headers = headers
        headers.set("ETag", tag)
        response = .json(body, headers: headers)
        entityTag = tag
    }

    /// Any other answer (an error), kept without a tag.
    public init(_ response: HTTPResponse) {
        self.response = response
        entityTag = nil
    }

    public func response(for request: HTTPRequest) -> HTTPResponse {
        guard let entityTag, let condition = request.headers["if-none-match"],
            EntityTag.matches(ifNoneMatch: condition, tag: entityTag)
        else { return response }
        var headers = HTTPHeaders()
        for field in response.headers where !HTTPHeaders.equal(field.name, "content-type") {
            headers.add(field.name, field.value)
        }
        return HTTPResponse(status: .notModified, headers: headers)
    }
}
