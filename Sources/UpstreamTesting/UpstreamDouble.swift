import HTTPServer

/// One upstream as ``FixtureUpstream`` plays it: the paths it answers and its recorded answers. Each upstream
/// brings its own (`Doubles/`), listed once in ``FixtureUpstream/doubles``; the failure modes every upstream
/// shares (a status, a hang, garbage, …) are the fixture server's.
public protocol UpstreamDouble: Sendable {
    /// Which upstream this is (``FixtureUpstream/set(_:_:)``, ``FixtureUpstream/requests(_:)``).
    var upstream: FixtureUpstream.Upstream { get }
    /// The paths it answers (``PathTemplate``s allowed).
    var paths: [String] { get }
    /// The answer in the normal mode.
    func answer(_ request: FixtureUpstream.Request) -> HTTPResponse
    /// The upstream's own answer for an error `status` (its recorded error document), if it has one.
    func error(status: Int) -> HTTPResponse?
    /// The answer in a mode of its own (``FixtureUpstream/Mode/variant(_:)``); `nil`: the normal one.
    func answer(_ request: FixtureUpstream.Request, variant: String) -> HTTPResponse?
}

extension UpstreamDouble {
    public func error(status: Int) -> HTTPResponse? { nil }
    public func answer(_ request: FixtureUpstream.Request, variant: String) -> HTTPResponse? { nil }

    /// A JSON answer with the upstream's own content type.
    static func json(_ body: [UInt8], status: HTTPStatus = .ok, contentType: String = "application/json") -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": contentType], body: body)
    }

    /// A recorded error document for `status`.
    static func recordedError(_ bodies: [Int: [UInt8]], status: Int, contentType: String = "application/json; charset=utf-8") -> HTTPResponse? {
        bodies[status].map { json($0, status: HTTPStatus(code: status, reason: "Upstream Error"), contentType: contentType) }
    }
}
