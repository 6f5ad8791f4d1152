import CAPFormat
import Postgres
import WarningsFormat

/// A document the feed lists, as another feature reads it (the warnings' push fan-out): Warnings owns
/// `weather_warnings`, so the statement that reads it and the one fragment another statement may use are here.
public struct ListedWarning: Sendable, Equatable {
    public var url: String
    public var identifier: String
    /// The first document it references (an Update's or Cancel's original), if any.
    public var reference: String?
    /// In force, not cancelled, not expired, with an area.
    public var live: Bool
    /// CAP's severity as ``CAPSeverity``'s raw value.
    public var severity: Int
    /// Seconds since 1970.
    public var expires: Int64
    /// The stored entry in each language (``StoredWarning/entries``).
    public var entries: [WarningLanguage: String]

    /// Every document listed, on `connection` (within the caller's transaction).
    public static func all(on connection: PostgresConnection) throws -> [ListedWarning] {
        try connection.query(
            """
            SELECT url, identifier, refs[1] AS reference, msg_type, in_force AND expires > now() AND area IS NOT NULL AS live,
                severity::int AS severity, extract(epoch FROM expires)::bigint AS expires, entry_en, entry_fi, entry_sv
            FROM weather_warnings
            """
        ).map { row in
            ListedWarning(
                url: try row.decode(String.self, "url"), identifier: try row.decode(String.self, "identifier"),
                reference: try row.decode(String?.self, "reference"),
                live: try row.decode(Bool.self, "live") && (try row.decode(String.self, "msg_type")) != "Cancel",
                severity: try row.decode(Int.self, "severity"), expires: try row.decode(Int64.self, "expires"),
                entries: [.en: try row.decode(String.self, "entry_en"), .fi: try row.decode(String.self, "entry_fi"), .sv: try row.decode(String.self, "entry_sv")])
        }
    }

    /// The area (a PostGIS multipolygon) of the document whose URL is the statement's parameter `parameter` (`"$1"`),
    /// for another module's statement to intersect with its own geometries.
    public static func area(ofURL parameter: String) -> String {
        "(SELECT area FROM weather_warnings WHERE url = \(parameter))"
    }
}
