import Foundation
import Markup
import Parsing
import WarningsFormat

/// Reads one CAP 1.2 document (FMI's profile, `Tests/Fixtures/fmi-warnings/README.md`) into a ``CAPAlert``.
///
/// One streaming pass on element local names (the namespace prefix does not matter), in whatever order the
/// elements come — the profile guarantees none. Unknown elements and values are skipped quietly, as the profile
/// asks; an `info` without a known severity, an onset or an expiry is left out; what cannot be a warning at all
/// (no identifier, no `sent`, an unknown `msgType`, not an `<alert>`) is an error.
public enum CAPParser {
    /// Largest document accepted (real areas follow coastlines: hundreds of vertices, several polygons).
    public static let maximumBytes = 8 << 20
    /// Vertices kept per document, whatever it holds (a bound on what one document can cost).
    public static let maximumVertices = 200_000

    public static func parse(_ bytes: [UInt8]) throws(WarningsError) -> CAPAlert {
        let reader = Reader()
        do {
            try MarkupEvents.parse(xml: bytes, handler: reader, maximumBytes: maximumBytes)
        } catch {
            throw .unreadable(error)
        }
        return try reader.alert()
    }

    /// `2026-11-23T14:00:00+02:00` (the offset as written; fractions cut) as an instant.
    static func instant(_ text: String) -> Date? {
        UTCInstant.parse(text.trimmingCharacters(in: .whitespacesAndNewlines)).map { Date(timeIntervalSince1970: TimeInterval($0)) }
    }

    /// A `<polygon>`'s `lat,lon` pairs; `nil` when any pair is not two finite coordinates in range. Read on the
    /// UTF-8 bytes (real areas carry thousands of pairs; splitting `Character`s costs a grapheme walk each).
    static func ring(_ text: String) -> [CAPPoint]? {
        var points: [CAPPoint] = []
        let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        for pair in text.utf8.split(whereSeparator: isSpace) {
            guard let comma = pair.firstIndex(of: UInt8(ascii: ",")),
                let latitude = Double(Substring(pair[pair.startIndex..<comma])),
                let longitude = Double(Substring(pair[pair.index(after: comma)...])),
                (-90...90).contains(latitude), (-180...180).contains(longitude)
            else { return nil }
            points.append(CAPPoint(latitude: latitude, longitude: longitude))
        }
        return points
    }

    private final class Reader: MarkupEventHandler {
        private var path: [String] = []
        private var identifier: String?
        private var sent: Date?
        private var messageType: String?
        private var references: [String] = []
        private var infos: [CAPInfo] = []
        private var rings: [[CAPPoint]] = []
        private var vertices = 0
        private var root: String?
        /// The info being read: its elements by name, its event code, its polygons.
        private var fields: [String: String] = [:]
        private var pairName: String?
        private var pairValue: String?
        private var infoRings: [[CAPPoint]] = []

        /// Elements whose text is read, by their parent.
        private static let alertFields: Set<String> = ["identifier", "sent", "msgType", "references"]
        private static let infoFields: Set<String> = ["language", "event", "severity", "onset", "expires", "headline", "description", "web"]

        func start(_ element: MarkupElement) -> Bool {
            let name = element.name.string
            if root == nil { root = name }
            let parent = path.last
            path.append(name)
            switch (parent, name) {
            case ("alert", let field) where Self.alertFields.contains(field): return true
            case ("alert", "info"):
                fields = [:]
                infoRings = []
            case ("info", let field) where Self.infoFields.contains(field): return true
            case ("eventCode", "valueName"), ("eventCode", "value"): return true
            case ("area", "polygon"): return true
            default: break
            }
            return false
        }

        func end(_ name: MarkupName, text: String?) {
            let element = path.popLast() ?? ""
            let parent = path.last
            switch (parent, element) {
            case ("alert", "identifier"): identifier = text?.trimmingCharacters(in: .whitespacesAndNewlines)
            case ("alert", "sent"): sent = text.flatMap(CAPParser.instant)
            case ("alert", "msgType"): messageType = text?.trimmingCharacters(in: .whitespacesAndNewlines)
            case ("alert", "references"):
                // `sender,identifier,sent` triples separated by white space: the identifier is what matches.
                for triple in (text ?? "").split(whereSeparator: \.isWhitespace) {
                    let parts = triple.split(separator: ",", omittingEmptySubsequences: false)
                    if parts.count >= 2, !parts[1].isEmpty { references.append(String(parts[1])) }
                }
            case ("info", let field) where Self.infoFields.contains(field):
                fields[field] = text?.trimmingCharacters(in: .whitespacesAndNewlines)
            case ("eventCode", "valueName"): pairName = text?.trimmingCharacters(in: .whitespacesAndNewlines)
            case ("eventCode", "value"): pairValue = text?.trimmingCharacters(in: .whitespacesAndNewlines)
            case ("info", "eventCode"):
                // FMI's code is the one named after its profile; another authority's code is not ours to read.
                if let value = pairValue, pairName?.contains("alerts.fmi.fi") ?? true { fields["eventCode"] = value }
                pairName = nil
                pairValue = nil
            case ("area", "polygon"):
                if let ring = text.flatMap(CAPParser.ring), ring.count >= 3, vertices + ring.count <= CAPParser.maximumVertices {
                    vertices += ring.count
                    infoRings.append(ring)
                }
            case ("alert", "info"): finishInfo()
            default: break
            }
        }

        private func finishInfo() {
            // The areas are the same in every language: the first info that has any gives them.
            if rings.isEmpty { rings = infoRings }
            guard let severity = fields["severity"].flatMap(CAPSeverity.init(cap:)), let onset = fields["onset"].flatMap(CAPParser.instant),
                let expires = fields["expires"].flatMap(CAPParser.instant)
            else { return }
            infos.append(CAPInfo(
                language: fields["language"] ?? "", event: fields["event"] ?? "", eventCode: fields["eventCode"] ?? "", severity: severity,
                onset: onset, expires: expires, headline: fields["headline"] ?? "", description: fields["description"] ?? "",
                web: fields["web"] ?? ""))
        }

        func alert() throws(WarningsError) -> CAPAlert {
            guard root == "alert" else { throw .unexpectedRoot(root ?? "", expected: "alert") }
            guard let identifier, !identifier.isEmpty else { throw .missing("identifier") }
            guard let sent else { throw .missing("sent") }
            guard let type = messageType.flatMap(CAPAlert.MessageType.init(rawValue:)) else { throw .missing("msgType") }
            guard type == .cancel || !infos.isEmpty else { throw .noUsableInfo(identifier: identifier) }
            return CAPAlert(identifier: identifier, sent: sent, messageType: type, references: references, infos: infos, rings: rings)
        }
    }
}
