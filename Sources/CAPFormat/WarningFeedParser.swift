import Foundation
import Markup

/// Reads FMI's RSS warnings feed (`rss_en-GB.rss`): the links of its items, each a CAP document's own URL.
///
/// The RSS feed, not the Atom one: it is small (FMI: typically 10–20 kB) where the Atom feed carries every
/// document inside and can grow past 100 MB; with RSS, each document is fetched once (a CAP document never
/// changes after it is issued) and memory stays bounded by the number of links. The feed's language only
/// decides its own titles: every document carries all its languages.
public enum WarningFeedParser {
    public static let maximumBytes = 8 << 20
    /// Documents Pier keeps at once (FMI's busiest days list a few hundred; far above that is not a feed of warnings).
    public static let maximumDocuments = 5_000

    public static func links(_ bytes: [UInt8]) throws(WarningsError) -> [String] {
        let reader = Reader()
        do {
            try MarkupEvents.parse(xml: bytes, handler: reader, maximumBytes: maximumBytes)
        } catch {
            throw .unreadable(error)
        }
        guard reader.root == "rss" else { throw .unexpectedRoot(reader.root ?? "", expected: "rss") }
        guard reader.links.count <= maximumDocuments else { throw .tooManyDocuments(reader.links.count, limit: maximumDocuments) }
        return reader.links
    }

    private final class Reader: MarkupEventHandler {
        var root: String?
        var links: [String] = []
        private var seen: Set<String> = []
        private var path: [String] = []

        func start(_ element: MarkupElement) -> Bool {
            let name = element.name.string
            if root == nil { root = name }
            defer { path.append(name) }
            return name == "link" && path.last == "item"
        }

        func end(_ name: MarkupName, text: String?) {
            path.removeLast()
            guard let link = text?.trimmingCharacters(in: .whitespacesAndNewlines), !link.isEmpty, path.last == "item" else { return }
            if seen.insert(link).inserted { links.append(link) }
        }
    }
}
