import Foundation

/// Next Wave's `PromoTilesResponse` and its tiles as the app decodes them (`.iso8601` dates, `image` and `link`, every
/// member the app treats as optional optional here): decoding Pier's answer with these is the contract test.
public struct AppPromoTiles: Decodable, Sendable {
    public struct Tile: Decodable, Sendable {
        public let id: String
        public let title: String
        public let subtitle: String?
        public let text: String
        public let image: String?
        public let link: String?
        public let isActive: Bool?
        public let priority: Int?
        public let validFrom: Date?
        public let validUntil: Date?
        public let targetOS: String?
        public let chipType: String?
    }

    public let version: Int?
    public let tiles: [Tile]

    /// `body` read as the app reads it.
    public static func decode(_ body: [UInt8]) throws -> AppPromoTiles {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(AppPromoTiles.self, from: Data(body))
    }
}
