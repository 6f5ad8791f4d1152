import ArgumentParser
import Foundation
import Postgres

/// Demo data never lands in a live database: `serve --demo` uses `<database>_demo` on the same server,
/// created on first use.
enum DemoDatabase {
    /// `url` with its database replaced by `<current database>_demo`, which exists afterwards, and that database's name.
    static func prepare(_ url: String) throws -> (url: String, database: String) {
        let connection = try PostgresConnection(url: url)
        let current = try connection.query("SELECT current_database() AS name")[0].decode(String.self, "name")
        if current.hasSuffix("_demo") { return (url, current) }
        let demo = current + "_demo"
        if try connection.query("SELECT 1 AS found FROM pg_database WHERE datname = $1", [demo]).isEmpty {
            _ = try connection.execute("CREATE DATABASE \"\(demo.replacingOccurrences(of: "\"", with: "\"\""))\"")
        }
        // libpq takes a connection parameter in the URL's query, and a later one wins: the database is named there, so a
        // URL naming several hosts (`postgresql://…@a:5432,b:5432/pier?target_session_attrs=read-write`, which
        // `URLComponents` cannot read) keeps them.
        guard let name = demo.addingPercentEncoding(withAllowedCharacters: .alphanumerics) else {
            throw ValidationError("DATABASE_URL could not be pointed at \(demo)")
        }
        return (url + (url.contains("?") ? "&" : "?") + "dbname=" + name, demo)
    }
}
