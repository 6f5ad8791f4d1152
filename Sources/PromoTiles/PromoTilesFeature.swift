import ArgumentParser
import Feature
import HTTPServer
import Logging
import Scheduling

/// Next Wave's promo tiles, served from Pier instead of a static file on the app's website: the operator imports a
/// set (`pier promo-tiles import FILE`), every replica serves it within seconds (the change feed). No upstream, no
/// settings: `Cache-Control` is the service's ``FeatureContext/cacheMaxAge``.
public struct PromoTilesFeature: Feature {
    public var name: String { "promo-tiles" }
    /// What an import announces to the running replicas.
    static let topic = ChangeTopic("promo-tiles")

    private let store: PromoTileStore
    private let routes: PromoTileRoutes

    public init(context: FeatureContext) {
        store = PromoTileStore(pool: context.pool)
        routes = PromoTileRoutes(maxAge: context.cacheMaxAge)
    }

    /// A stored set that no longer reads (a later check is stricter) is not served — `404`, the app's "no tiles" — and
    /// never keeps the service from starting; the operator imports it again.
    public func load() async throws {
        do {
            routes.hold(try await store.current())
        } catch let invalid as PromoTileFile.Invalid {
            Logger(label: "pier.promo-tiles").error("the stored promo tiles do not read; serving none", metadata: ["problems": "\(invalid.problems.count)"])
            routes.hold(nil)
        }
    }

    public func reload(_ topic: ChangeTopic) async throws {
        if topic == Self.topic { try await load() }
    }

    public func register(in router: inout Router) { routes.register(in: &router) }

    public static var commands: [any ParsableCommand.Type] { [PromoTilesCommand.self] }
}
