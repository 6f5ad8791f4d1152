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
        guard let entityTag = storage.entityTag, let notModified = storage.notModified,
            request.headers.withFirstValue("if-none-match", { EntityTag.matches(ifNoneMatch: $0, tag: entityTag) }) == true
        else { return storage.response }
        return notModified
    }
}
