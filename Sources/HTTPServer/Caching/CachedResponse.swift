/// A response encoded once and answered many times, with its entity tag.
///
/// ``response(for:)`` answers a matching `If-None-Match` with `304` (same `ETag` and caching headers, no body).
public struct CachedResponse: Sendable {
    /// The answer, its tag and its `304`, held once: a cache hands a cached response out on every request, and a copy
    /// of one reference costs one count where a copy of the fields cost one for each of their buffers.
    private final class Storage: Sendable {
        let response: HTTPResponse
        let entityTag: String?
        /// The `304` for a matching `If-None-Match`: the same `ETag` and caching headers, no body.
        let notModified: HTTPResponse?

        init(response: HTTPResponse, entityTag: String?, notModified: HTTPResponse?) {
            self.response = response
            self.entityTag = entityTag
            self.notModified = notModified
        }

        /// Whether an `If-None-Match` of these bytes is answered with the `304` (never without a tag).
        func isNotModified(ifNoneMatch value: UnsafeBufferPointer<UInt8>) -> Bool {
            guard let entityTag else { return false }
            return EntityTag.matches(ifNoneMatch: value, tag: entityTag)
        }
    }

    private let storage: Storage

    public var response: HTTPResponse { storage.response }
    /// The quoted tag, or `nil` for answers that must not be revalidated (errors).
    public var entityTag: String? { storage.entityTag }

    /// A `200` JSON answer; the tag is computed from `body` and added to `headers`.
    public init(json body: [UInt8], headers: HTTPHeaders) {
        let tag = EntityTag.make(for: body)
        var headers = headers
        headers.set("ETag", tag)
        let response = HTTPResponse.json(body, headers: headers)
        var kept = HTTPHeaders()
        for field in response.headers where !HTTPHeaders.equal(field.name, "content-type") {
            kept.add(field.name, field.value)
        }
        storage = Storage(
            response: response.preparedForSending(), entityTag: tag,
            notModified: HTTPResponse(status: .notModified, headers: kept).preparedForSending())
    }

    /// Any other answer (an error), kept without a tag. Not prepared: most are made for the one request they refuse
    /// (an on-demand refusal), where encoding the head ahead of the send would only add its allocations.
    public init(_ response: HTTPResponse) {
        storage = Storage(response: response, entityTag: nil, notModified: nil)
    }

    public func response(for request: HTTPRequest) -> HTTPResponse {
        let storage = storage
        // The tag and the `304` are read only for a request that revalidates: binding them first copied the `304` (a
        // count on each of its buffers, and their release) on every request.
        if request.headers.withFirstValue("if-none-match", { storage.isNotModified(ifNoneMatch: $0) }) == true, let notModified = storage.notModified {
            return notModified
        }
        return storage.response
    }
}
