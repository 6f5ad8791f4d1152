import HTTPServer

/// One upstream as ``FixtureUpstream`` plays it: the paths it answers, its recorded answers and the settings that
/// point its feature at it. Each upstream's double is a file `<Name>Double.swift` in the `Testing/` folder of the module
/// that calls it (compiled into this module, never into that one); the DoubleList plugin lists them all
/// (``FixtureUpstream/doubles()``), so a new one is found without a line anywhere else. The failure modes every
/// upstream shares (a status, a hang, garbage, …) are the fixture server's.
public protocol UpstreamDouble: Sendable {
    /// Reads its recorded answers (``Fixtures``).
    init() throws
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
    /// The settings that point its feature at `server` (its `PIER_…_URL`), with what the feature needs to run against
    /// the recordings at a test's pace (no pause between pages, the lakes they hold).
    func settings(of server: FixtureUpstream) -> [String: String]
    /// Settings under which its feature never refuses (a key given, budgets and shares out of reach): for explorers
    /// such as schemathesis, whose many requests must meet answers, not refusals.
    var unlimited: [String: String] { get }
}

extension UpstreamDouble {
    public func error(status: Int) -> HTTPResponse? { nil }
    public func answer(_ request: FixtureUpstream.Request, variant: String) -> HTTPResponse? { nil }
    public var unlimited: [String: String] { [:] }

    /// A JSON answer with the upstream's own content type.
    static func json(_ body: [UInt8], status: HTTPStatus = .ok, contentType: String = "application/json") -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": contentType], body: body)
    }

    /// A recorded error document for `status`.
    static func recordedError(_ bodies: [Int: [UInt8]], status: Int, contentType: String = "application/json; charset=utf-8") -> HTTPResponse? {
        bodies[status].map { json($0, status: HTTPStatus(code: status, reason: "Upstream Error"), contentType: contentType) }
    }
}
