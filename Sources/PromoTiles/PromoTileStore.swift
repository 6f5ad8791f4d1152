import Foundation
import HTTPServer
import Postgres

/// The imported set in PostgreSQL (`promo_tile_sets`, this module's): one row, replaced whole.
public struct PromoTileStore: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// The set imported last, or `nil` when none has been; read through ``PromoTileFile`` again, so what is served is
    /// always what the app can decode.
    public func current() async throws -> PromoTileSet? {
        guard let row = try await pool.query("SELECT document FROM promo_tile_sets").first else { return nil }
        return try PromoTileFile.read(Array(try row.decode(String.self, "document").utf8))
    }

    /// Replaces the set in one statement: every replica reads the old set or the new one.
    public func replace(with set: PromoTileSet) async throws {
        let document = String(decoding: try JSONBody.encode(set), as: UTF8.self)
        _ = try await pool.execute(
            """
            INSERT INTO promo_tile_sets (singleton, document, tiles, imported_at) VALUES (true, $1, $2, now())
            ON CONFLICT (singleton) DO UPDATE SET document = EXCLUDED.document, tiles = EXCLUDED.tiles, imported_at = EXCLUDED.imported_at
            """, [document, set.tiles.count])
    }
}
