import Feature
import HTTPServer

/// `/v1/sun`: sun events computed in Pier. No source, no settings, nothing to load.
public struct SunFeature: Feature {
    public var name: String { "sun" }
    private let routes = SunRoutes()

    public init() {}

    public func register(in router: inout Router) { routes.register(in: &router) }
}
