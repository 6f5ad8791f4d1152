import ArgumentParser
import Foundation
import Postgres

/// Demo data never lands in a live database: `serve --demo` uses `<database>_demo` on the same server,
/// created on first use.
enum DemoDatabase {
    /// `url` with its database replaced by `<current database>_demo`, which exists afterwards.
    static func prepare(_ url: String) throws -> String {
        let connection = try PostgresConnection(url: url)
        let current = try connection.query("SELECT current_database() AS name")[0].decode(String.self, "name")
        let demo = current.hasSuffix("_demo") ? current : current + "_demo"
        if try connection.query("SELECT 1 AS found FROM pg_database WHERE datname = $1", [demo]).isEmpty {
            _ = try connection.execute("CREATE DATABASE \"\(demo.replacingOccurrences(of: "\"", with: "\"\""))\"")
        }
        guard var components = URLComponents(string: url) else { throw ValidationError("DATABASE_URL is not a URL") }
        components.path = "/" + demo
        guard let demoURL = components.string else { throw ValidationError("DATABASE_URL could not be pointed at \(demo)") }
        return demoURL
    }
}
