import Basics
import Foundation
import Parsing
import WarningsFormat

/// A CAP document as `weather_warnings` keeps it: what decides whether it is in force (type, references,
/// expiry), its entry as `/v1/warnings` writes it in each language (another language's texts where the document
/// lacks one), and its area as well-known text for PostGIS.
public struct StoredWarning: Sendable, Equatable {
    public var url: String
    public var identifier: String
    public var messageType: CAPAlert.MessageType
    public var references: [String]
    public var severity: CAPSeverity
    public var onset: Date
    public var expires: Date
    /// The encoded JSON object per language.
    public var entries: [WarningLanguage: String]
    /// `MULTIPOLYGON(((lon lat, …)), …)`, or `nil` when the document has no usable ring (it then covers no point).
    public var area: String?

    public init(url: String, alert: CAPAlert) {
        self.url = url
        identifier = alert.identifier
        messageType = alert.messageType
        references = alert.references
        // A Cancel may come without infos: it is never in force, so what stands here only fills the columns.
        severity = alert.severity ?? .minor
        onset = alert.onset ?? alert.sent
        expires = alert.expires ?? alert.sent
        var entries: [WarningLanguage: String] = [:]
        for language in WarningLanguage.allCases {
            let info = language.fallbacks.lazy.compactMap { wanted in alert.infos.first { wanted.matches($0.language) } }.first ?? alert.infos.first
            entries[language] = Self.entry(identifier: alert.identifier, info: info, fallback: language)
        }
        self.entries = entries
        area = Self.wellKnownText(alert.rings)
    }

    /// `{"color","description","event","event_code","expires","headline","id","language","onset","severity","web"}`,
    /// keys sorted like every body Pier writes.
    static func entry(identifier: String, info: CAPInfo?, fallback: WarningLanguage) -> String {
        JSONWriter.text { json in
            json.object { json in
                guard let info else { return json.member("id", identifier) }
                let language = WarningLanguage.allCases.first { $0.matches(info.language) } ?? fallback
                json.member("color", info.severity.color)
                json.member("description", info.description)
                json.member("event", info.event)
                json.member("event_code", info.eventCode)
                json.member("expires", UTCInstant.string(Int(info.expires.timeIntervalSince1970)))
                json.member("headline", info.headline)
                json.member("id", identifier)
                json.member("language", language.rawValue)
                json.member("onset", UTCInstant.string(Int(info.onset.timeIntervalSince1970)))
                json.member("severity", info.severity.name)
                json.member("web", info.web)
            }
        }
    }

    /// CAP writes `lat,lon`; PostGIS points are (x = longitude, y = latitude): every pair swapped. Each ring is a
    /// polygon of its own (CAP has no holes), closed when the document left it open; the union and the repair of
    /// self-touching rings are PostgreSQL's (`ST_MakeValid`).
    static func wellKnownText(_ rings: [[CAPPoint]]) -> String? {
        let polygons = rings.compactMap { ring -> String? in
            var ring = ring
            if let first = ring.first, ring.last != first { ring.append(first) }
            guard ring.count >= 4 else { return nil }
            return "((" + ring.map { "\($0.longitude) \($0.latitude)" }.joined(separator: ",") + "))"
        }
        return polygons.isEmpty ? nil : "MULTIPOLYGON(" + polygons.joined(separator: ",") + ")"
    }
}
