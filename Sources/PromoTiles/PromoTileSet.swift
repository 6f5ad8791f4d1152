/// The tiles the app shows, as one document (`{version, tiles}`): imported whole, replaced whole, served whole.
public struct PromoTileSet: Sendable, Equatable, Encodable {
    /// The operator's number for the set (the app reads it; 1 when the file gives none).
    public var version: Int
    public var tiles: [PromoTile]
}
