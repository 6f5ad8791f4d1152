import Parsing

/// An operator's promo tiles file read into a ``PromoTileSet``, every tile checked the way the app will read it:
/// a file the app could not decode would hide every tile (it decodes the whole list or none), so each problem is
/// named — the tile, the member, what is wrong — and nothing is imported while one is left.
public enum PromoTileFile {
    /// What the file may hold: the app shows a strip of a few; a set is read into memory whole.
    public static let maximumBytes = 256 << 10
    public static let maximumTiles = 50
    static let maximumTextLength = 2_000
    static let maximumShortLength = 200
    static let maximumURLLength = 2_048

    /// The file's problems, one line each.
    public struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        public var problems: [String]
        public var description: String { "the promo tiles are not valid:\n" + problems.map { "  - \($0)" }.joined(separator: "\n") }
    }

    public static func read(_ bytes: [UInt8]) throws(Invalid) -> PromoTileSet {
        guard bytes.count <= maximumBytes else { throw Invalid(problems: ["the file has \(bytes.count) bytes: at most \(maximumBytes)"]) }
        let document: JSONNode
        do { document = try JSONScanner.parse(bytes) } catch { throw Invalid(problems: ["\(error)"]) }
        guard case .object(let members) = document.kind else { throw Invalid(problems: [#"the file is not a JSON object {"version": 1, "tiles": […]}"#]) }
        var reader = Reader(text: bytes)
        for member in members where member.key != "version" && member.key != "tiles" {
            reader.problem("the file has a member \"\(member.key)\" the app does not read (only version and tiles)")
        }
        var version = 1
        if let node = document["version"], !node.isNull {
            if node.isInteger(in: bytes), let number = node.integer(in: bytes), number >= 1 { version = number } else {
                reader.problem("version must be a whole number of 1 or more")
            }
        }
        var tiles: [PromoTile] = []
        if let list = document["tiles"]?.elements {
            if list.count > maximumTiles { reader.problem("the file has \(list.count) tiles: at most \(maximumTiles)") }
            var seen: Set<String> = []
            for (index, node) in list.prefix(maximumTiles).enumerated() {
                let (id, tile) = reader.tile(node, number: index + 1)
                if let id, !seen.insert(id).inserted { reader.problem("tile \(index + 1) (\(id)): another tile has the id \(id)") }
                if let tile { tiles.append(tile) }
            }
        } else {
            reader.problem("tiles must be a list of tiles (an empty list shows none)")
        }
        guard reader.problems.isEmpty else { throw Invalid(problems: reader.problems) }
        return PromoTileSet(version: version, tiles: tiles)
    }

    /// Reads one tile's members, noting what is wrong with each.
    private struct Reader {
        let text: [UInt8]
        var problems: [String] = []
        private var tile = ""

        init(text: [UInt8]) {
            self.text = text
        }

        mutating func problem(_ line: String) {
            problems.append(line)
        }

        /// The tile's id (when it has one) and the tile (when all it needs is there).
        mutating func tile(_ node: JSONNode, number: Int) -> (id: String?, tile: PromoTile?) {
            guard case .object(let members) = node.kind else {
                problem("tile \(number) is not an object")
                return (nil, nil)
            }
            tile = "tile \(number)"
            let id = string(node, "id", required: true, limit: PromoTileFile.maximumShortLength)
            if let id { tile = "tile \(number) (\(id))" }
            for member in members where !Self.members.contains(member.key) {
                let hint = Self.renamed[member.key].map { " (the app reads \($0))" } ?? ""
                problem("\(tile): the app does not read \(member.key)\(hint)")
            }
            let title = string(node, "title", required: true, limit: PromoTileFile.maximumShortLength)
            let text = string(node, "text", required: true, limit: PromoTileFile.maximumTextLength)
            let from = instant(node, "validFrom"), until = instant(node, "validUntil")
            if let from, let until, from >= until { problem("\(tile): validFrom must come before validUntil") }
            let result = PromoTile(
                id: id ?? "", title: title ?? "", subtitle: string(node, "subtitle", limit: PromoTileFile.maximumShortLength),
                text: text ?? "", image: url(node, "image"), link: url(node, "link"), isActive: bool(node, "isActive") ?? true,
                priority: integer(node, "priority") ?? 1, validFrom: from.map(UTCInstant.string), validUntil: until.map(UTCInstant.string),
                targetOS: targetOS(node), chipType: string(node, "chipType", limit: PromoTileFile.maximumShortLength))
            return (id, id == nil || title == nil || text == nil ? nil : result)
        }

        static let members: Set<String> = [
            "id", "title", "subtitle", "text", "image", "link", "isActive", "priority", "validFrom", "validUntil", "targetOS", "chipType",
        ]
        /// Names the app's API notes use for members its decoder reads under other names.
        static let renamed = ["imageUrl": "image", "linkUrl": "link"]

        /// A present, non-null member's node; `nil` when absent or `null` (the app's optionals).
        private func value(_ node: JSONNode, _ name: String) -> JSONNode? {
            guard let value = node[name], !value.isNull else { return nil }
            return value
        }

        mutating func string(_ node: JSONNode, _ name: String, required: Bool = false, limit: Int) -> String? {
            guard let value = value(node, name) else {
                if required { problem("\(tile): \(name) is required") }
                return nil
            }
            guard let text = value.string else {
                problem("\(tile): \(name) must be text")
                return nil
            }
            if required, text.allSatisfy(\.isWhitespace) {
                problem("\(tile): \(name) is empty")
                return nil
            }
            if text.count > limit {
                problem("\(tile): \(name) has \(text.count) characters: at most \(limit)")
                return nil
            }
            return text
        }

        mutating func url(_ node: JSONNode, _ name: String) -> String? {
            guard let text = string(node, name, limit: PromoTileFile.maximumURLLength) else { return nil }
            // An absolute https URL with a host: the app opens and loads what it is given, and iOS loads only https.
            guard text.hasPrefix("https://"), let host = text.dropFirst(8).split(separator: "/", omittingEmptySubsequences: false).first,
                !host.isEmpty, !text.contains(where: { $0.isWhitespace })
            else {
                problem("\(tile): \(name) must be an https URL (https://…)")
                return nil
            }
            return text
        }

        mutating func bool(_ node: JSONNode, _ name: String) -> Bool? {
            guard let value = value(node, name) else { return nil }
            guard case .bool(let flag) = value.kind else {
                problem("\(tile): \(name) must be true or false")
                return nil
            }
            return flag
        }

        mutating func integer(_ node: JSONNode, _ name: String) -> Int? {
            guard let value = value(node, name) else { return nil }
            guard value.isInteger(in: text), let number = value.integer(in: text), abs(number) <= Int(Int32.max) else {
                problem("\(tile): \(name) must be a whole number")
                return nil
            }
            return number
        }

        /// Epoch seconds of `2026-06-01T00:00:00Z` or `…+02:00`: Swift's `.iso8601` (the app's) reads no fraction of
        /// a second and no date without a time.
        mutating func instant(_ node: JSONNode, _ name: String) -> Int? {
            guard let text = string(node, name, limit: 40) else { return nil }
            let bytes = Array(text.utf8)
            guard bytes.count > 19, bytes[10] == UInt8(ascii: "T"), bytes[19] != UInt8(ascii: "."), let seconds = UTCInstant.parse(text) else {
                problem("\(tile): \(name) must be a date and time like 2026-06-01T00:00:00Z or 2026-06-01T00:00:00+02:00 (no fraction of a second)")
                return nil
            }
            return seconds
        }

        mutating func targetOS(_ node: JSONNode) -> String? {
            guard let text = string(node, "targetOS", limit: 40) else { return nil }
            let words = text.lowercased().split(whereSeparator: { $0 == "," || $0 == " " })
            guard !words.isEmpty, words.allSatisfy({ ["ios", "android", "both"].contains($0) }) else {
                problem("\(tile): targetOS must be ios, android, ios,android or both")
                return nil
            }
            return text
        }
    }
}
