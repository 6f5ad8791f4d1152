import ArgumentParser
import Feature
import FeatureCommands
import Foundation

/// `pier promo-tiles …`: the operator's hand on the tiles Next Wave shows.
struct PromoTilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "promo-tiles", abstract: "Next Wave's promo tiles: import the set the app shows.", subcommands: [ImportPromoTilesCommand.self])
}

/// `pier promo-tiles import FILE`: checks every tile and replaces the set whole; running replicas serve it within seconds.
struct ImportPromoTilesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Check a promo tiles file ({\"version\": 1, \"tiles\": […]}) and replace the set the app is shown.",
        discussion: """
            Every tile is checked as the app reads it: id, title and text required; image and link https URLs; validFrom and \
            validUntil like 2026-06-01T00:00:00Z (no fraction of a second); targetOS ios, android or both. Nothing is imported \
            while a problem is left; an empty list shows no tiles. Environment: DATABASE_URL (required; or DATABASE_URL_FILE).
            """)

    @Argument(help: "The JSON file.")
    var file: String

    @Flag(help: "Only check the file; import nothing.")
    var check = false

    func run() throws {
        guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read \(file)") }
        let set = try PromoTileFile.read(Array(data))
        let summary = "\(set.tiles.count) promo tiles (version \(set.version))"
        if check {
            print("\(summary) are valid; nothing imported")
            return
        }
        try Commands.current.withDatabase(announcing: PromoTilesFeature.topic) { pool in
            try await PromoTileStore(pool: pool).replace(with: set)
        }
        print("imported \(summary); running replicas serve them within seconds")
    }
}
