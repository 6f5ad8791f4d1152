import CAPFormat
import Foundation

// FMI's CAP documents and its RSS feed on arbitrary bytes. Properties: no crash; an alert has an identifier, and
// every info an onset and an expiry; what Pier stores of it — each language's entry — is valid JSON with that
// identifier, and its area is a multipolygon of closed rings of at least four points, longitude first; the feed's
// links are unique, non-empty and within the bound.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    if let alert = try? CAPParser.parse(bytes) {
        precondition(!alert.identifier.isEmpty, "an alert without identifier")
        precondition(alert.messageType == .cancel || !alert.infos.isEmpty, "a warning without info")
        let stored = StoredWarning(url: "https://alerts.fmi.fi/cap/x.xml", alert: alert)
        for (language, entry) in stored.entries {
            guard let object = try? JSONSerialization.jsonObject(with: Data(entry.utf8)) as? [String: Any] else {
                preconditionFailure("the \(language) entry is not a JSON object: \(entry)")
            }
            precondition(object["id"] as? String == alert.identifier, "the entry's id")
        }
        if let area = stored.area {
            precondition(area.hasPrefix("MULTIPOLYGON(((") && area.hasSuffix(")))"), "area \(area.prefix(60))")
            for ring in area.dropFirst("MULTIPOLYGON(((".count).dropLast(3).components(separatedBy: ")),((") {
                let points = ring.split(separator: ",")
                precondition(points.count >= 4 && points.first == points.last, "an open or short ring")
            }
        }
    }
    if let links = try? WarningFeedParser.links(bytes) {
        precondition(Set(links).count == links.count && links.allSatisfy { !$0.isEmpty }, "duplicate or empty links")
        precondition(links.count <= WarningFeedParser.maximumDocuments, "more links than the bound")
    }
    return 0
}
