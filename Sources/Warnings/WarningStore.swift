import CAPFormat
import Foundation
import Basics
import Postgres
import WarningsFormat

/// `weather_warnings` (migration 0013): the documents the feed lists, staged as they arrive, published in one
/// transaction, looked up by point with PostGIS.
public struct WarningStore: Sendable {
    let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// The documents already stored (fetched at an earlier reading): not fetched again.
    public func storedURLs() async throws -> Set<String> {
        Set(try await pool.query("SELECT url FROM weather_warnings").map { try $0.decode(String.self, "url") })
    }

    /// Stores newly fetched documents, not in force until ``publish(listed:)`` decides.
    public func stage(_ warnings: [StoredWarning]) async throws {
        guard !warnings.isEmpty else { return }
        let rows: [[any PostgresEncodable]] = warnings.map { warning in
            [
                warning.url, warning.identifier, warning.messageType.rawValue, Self.jsonArray(warning.references), warning.severity.rawValue,
                warning.onset, warning.expires, warning.entries[.en] ?? "{}", warning.entries[.fi] ?? "{}", warning.entries[.sv] ?? "{}",
                warning.area,
            ]
        }
        _ = try await pool.withConnection { connection in
            try connection.insert(
                "INSERT INTO weather_warnings (url, identifier, msg_type, refs, severity, onset, expires, entry_en, entry_fi, entry_sv, area) VALUES",
                row: """
                    ($1, $2, $3, ARRAY(SELECT jsonb_array_elements_text($4::jsonb)), $5, $6, $7, $8, $9, $10, \
                    ST_Multi(ST_CollectionExtract(ST_MakeValid(ST_GeomFromText($11, 4326)), 3)))
                    """,
                rows: rows, tail: "ON CONFLICT (url) DO NOTHING")
        }
    }

    /// Makes `listed` the whole set: drops every other document and decides which are in force — in one
    /// transaction, so a lookup sees the old set or the new one, never a mix. Returns the documents in force
    /// (expired ones included: expiry is the lookup's).
    @discardableResult
    public func publish(listed: [String]) async throws -> Int {
        let urls = Self.jsonArray(listed)
        return try await pool.transaction { connection in
            _ = try connection.execute("DELETE FROM weather_warnings WHERE NOT url = ANY(ARRAY(SELECT jsonb_array_elements_text($1::jsonb)))", [urls])
            _ = try connection.execute("""
                UPDATE weather_warnings w SET in_force = w.msg_type <> 'Cancel'
                    AND NOT EXISTS (SELECT 1 FROM weather_warnings o WHERE w.identifier = ANY(o.refs) AND o.msg_type <> 'Alert')
                """)
            return try connection.query("SELECT count(*)::int AS n FROM weather_warnings WHERE in_force").first?.decode(Int.self, "n") ?? 0
        }
    }

    /// The entries (in `language`) of every warning in force whose area contains the point and whose expiry is after
    /// `now`, most severe first, then the earlier onset; with each its expiry.
    public func lookup(latitude: Double, longitude: Double, language: WarningLanguage, now: Date) async throws -> [(entry: String, expires: Date)] {
        // The column is one of three fixed names, never text from the request.
        let column = "entry_" + language.rawValue
        let rows = try await pool.query(
            """
            SELECT \(column) AS entry, expires FROM weather_warnings
            WHERE in_force AND expires > $3 AND ST_Intersects(area, ST_SetSRID(ST_MakePoint($1, $2), 4326))
            ORDER BY severity DESC, onset, identifier COLLATE "C"
            """, [longitude, latitude, now])
        return try rows.map { (try $0.decode(String.self, "entry"), try $0.decode(Date.self, "expires")) }
    }

    /// Every warning in force with its area, for the index lookups answer from (``WarningIndex``); expired ones too
    /// (expiry is the lookup's). A warning whose area PostGIS holds in a form the index cannot read is an error: the
    /// caller keeps asking PostGIS.
    func inForce() async throws -> [WarningIndex.Warning] {
        let rows = try await pool.query(
            "SELECT identifier, severity::int AS severity, onset, expires, entry_en, entry_fi, entry_sv, ST_AsText(area) AS area FROM weather_warnings WHERE in_force")
        return try rows.map { row in
            var area = WarningArea(polygons: [])
            if let text = try row.decode(String?.self, "area") {
                guard let read = WarningArea(wellKnownText: text) else { throw WarningsError.unreadableArea }
                area = read
            }
            return WarningIndex.Warning(
                identifier: try row.decode(String.self, "identifier"), severity: try row.decode(Int.self, "severity"),
                onset: try row.decode(Date.self, "onset"), expires: try row.decode(Date.self, "expires"),
                entries: [.en: try row.decode(String.self, "entry_en"), .fi: try row.decode(String.self, "entry_fi"), .sv: try row.decode(String.self, "entry_sv")],
                area: area)
        }
    }

    /// Warnings in force and not expired at `now` (for `/health` and the fetch summary).
    public func countInForce(now: Date) async throws -> Int {
        try await pool.query("SELECT count(*)::int AS n FROM weather_warnings WHERE in_force AND expires > $1", [now]).first?.decode(Int.self, "n") ?? 0
    }

    /// `["a","b"]`: text arrays travel as JSON (the wrapper binds text, numbers, times).
    static func jsonArray(_ values: [String]) -> String {
        JSONWriter.text { json in json.array { json in for value in values { json.string(value) } } }
    }
}
