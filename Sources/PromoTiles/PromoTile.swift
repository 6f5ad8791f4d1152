/// One tile of Next Wave's promo strip, as the app decodes it (`PromoTile`): the members it reads under the names it
/// reads them by (`image` and `link`, not the `imageUrl`/`linkUrl` of its API notes), optional ones left out when
/// absent, dates written as Swift's `.iso8601` decodes them (UTC, whole seconds).
public struct PromoTile: Sendable, Equatable, Encodable {
    public var id: String
    public var title: String
    public var subtitle: String?
    public var text: String
    /// An `https` URL of the tile's picture.
    public var image: String?
    /// An `https` URL the tile opens.
    public var link: String?
    public var isActive: Bool
    public var priority: Int
    /// `2026-06-01T00:00:00Z`: the app shows the tile from then on.
    public var validFrom: String?
    /// The app shows the tile until then.
    public var validUntil: String?
    /// `ios`, `android`, both (`ios,android`) or `both`: the iOS app shows a tile only when this names iOS or is `both`.
    public var targetOS: String?
    public var chipType: String?
}
