import Basics
import Feature
import Geography
import Glibc
import HTTPServer

/// Reads `/v1/places`'s query as the Smart City Guide app sends it to Geoapify: `lat`/`lon` or Geoapify's
/// `filter=circle:lon,lat,radius` (longitude first), `radius`, `categories`, `limit`, `lang` (`apiKey` is
/// accepted and ignored: the key is Pier's). Every problem is a `400` naming the parameter.
public enum PlacesQuery {
    public static let radiusRange = 1...20_000
    public static let limitRange = 1...100
    public static let defaultLimit = 50
    public static let defaultRadius = 5000
    public static let defaultLang = "de"
    public static let maximumCategories = 20

    public static func key(_ query: QueryParameters) throws -> PlacesKey {
        var point: Coordinate?
        var radius: Int?
        // Values read where they lie in the query (no String per parameter): this runs on every request, cached or not.
        if let circle = try query.withValue(literal: "filter", Self.circle) {
            point = circle.point
            radius = circle.radius
        }
        if point == nil || query.contains(literal: "lat") || query.contains(literal: "lon") {
            let given = try Coordinate(query)
            if let point, GreatCircle.metres(point.latitude, point.longitude, given.latitude, given.longitude) > 1 {
                throw HTTPError(.badRequest, "lat/lon and filter=circle: name different points; send one of them")
            }
            point = given
        }
        if let text = query[literal: "radius"] {
            guard let value = Int(text), radiusRange.contains(value) else {
                throw HTTPError(.badRequest, "radius must be whole metres between 1 and 20000, not '\(text.prefix(20))'")
            }
            if let radius, radius != value { throw HTTPError(.badRequest, "radius and filter=circle: give different radii") }
            radius = value
        }
        guard let point else { throw HTTPError(.badRequest, "lat and lon (or filter=circle:lon,lat,radius) are required") }
        guard let categories = try query.withValue(literal: "categories", Self.categories) else { throw Self.noCategories }
        return PlacesKey(
            latitude: point.latitude, longitude: point.longitude,
            parameters: .init(
                radius: radius ?? defaultRadius, categoryList: categories,
                limit: try limit(query[literal: "limit"]), lang: try lang(in: query)))
    }

    /// The query's `lang` (``lang(_:)``), read at its bytes: a code the apps send is its literal (no `String` made).
    public static func lang(in query: QueryParameters) throws -> String {
        try query.withValue(literal: "lang") { bytes in
            if bytes.count == 2 {
                switch (bytes[0], bytes[1]) {
                case (UInt8(ascii: "d"), UInt8(ascii: "e")): return "de"
                case (UInt8(ascii: "e"), UInt8(ascii: "n")): return "en"
                case (UInt8(ascii: "f"), UInt8(ascii: "r")): return "fr"
                case (UInt8(ascii: "i"), UInt8(ascii: "t")): return "it"
                default: break
                }
            }
            return try lang(String(decoding: bytes, as: UTF8.self))
        } ?? defaultLang
    }

    /// `circle:lon,lat,radius`: Geoapify's filter (the only one Pier takes). Three parts between two commas, found in the value's bytes (no array of pieces).
    static func circle(_ bytes: UnsafeBufferPointer<UInt8>) throws -> (point: Coordinate, radius: Int) {
        // The refusal is written only when it is thrown: this runs on every request.
        func problem() -> HTTPError {
            HTTPError(.badRequest, "filter must be circle:lon,lat,radius (longitude first, radius 1…20000 m), not '\(String(decoding: bytes.prefix(60), as: UTF8.self))'")
        }
        let prefix: StaticString = "circle:"
        let start = prefix.utf8CodeUnitCount
        // Compared as bytes (`starts(with:)` of a `String`'s UTF-8 view went through the generic sequence walk).
        guard bytes.count >= start, let base = bytes.baseAddress, memcmp(base, prefix.utf8Start, start) == 0 else { throw problem() }
        guard let first = bytes[start...].firstIndex(of: UInt8(ascii: ",")),
            let second = bytes[(first + 1)...].firstIndex(of: UInt8(ascii: ",")),
            !bytes[(second + 1)...].contains(UInt8(ascii: ","))
        else { throw problem() }
        guard let longitude = DecimalText.double(bytes: UnsafeBufferPointer(rebasing: bytes[start..<first])),
            let latitude = DecimalText.double(bytes: UnsafeBufferPointer(rebasing: bytes[(first + 1)..<second])),
            let point = Coordinate(latitude: latitude, longitude: longitude),
            let radius = Self.wholeMetres(UnsafeBufferPointer(rebasing: bytes[(second + 1)...])), radiusRange.contains(radius)
        else { throw problem() }
        return (point, radius)
    }

    /// The app writes the radius as an integer; `5000.0` is accepted as the same.
    private static func wholeMetres(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        if let value = DecimalText.integer(bytes: bytes) { return value }
        guard let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite, value == value.rounded(), abs(value) < 1e9
        else { return nil }
        return Int(value)
    }

    /// `categories` missing or empty.
    static let noCategories = HTTPError(.badRequest, "categories is required (comma-separated, e.g. tourism.attraction,leisure.park)")

    /// Leaf categories only (`tourism.attraction`): a top-level one (`tourism`) is refused, Pier's rule, which
    /// keeps cached answers keyed by what the app asks and their sizes bounded; the app's retry with
    /// `tourism.attraction` then works as it does against Geoapify. Read from the value's bytes item by item, without
    /// splitting into an array of strings first; sorted and without repeats as bytes, and joined by commas into the one
    /// `String` the key holds.
    static func categories(_ bytes: UnsafeBufferPointer<UInt8>) throws -> String {
        guard !bytes.isEmpty else { throw noCategories }
        // The items' places, on the stack (at most `maximumCategories`), each checked as it is found.
        return try withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: maximumCategories) { items in
            var count = 0
            var start = 0
            while start <= bytes.count {
                let end = ByteScan.first(UInt8(ascii: ","), in: bytes, from: start)
                guard count < maximumCategories else { throw HTTPError(.badRequest, "at most \(maximumCategories) categories") }
                let item = UnsafeBufferPointer(rebasing: bytes[start..<end])
                switch Self.category(item) {
                case .leaf: break
                case .malformed:
                    throw HTTPError(
                        .badRequest, "categories must be Geoapify category names (lower-case, dotted), not '\(String(decoding: item.prefix(40), as: UTF8.self))'")
                case .topLevel:
                    let category = String(decoding: item, as: UTF8.self)
                    throw HTTPError(
                        .badRequest, "top-level category '\(category)' is not accepted; ask for leaf categories such as \(category).attraction or tourism.attraction")
                }
                items[count] = start..<end
                count += 1
                start = end + 1
            }
            // One request whatever the order or repeats: sorted by insertion (a handful of items), compared as bytes
            // (they are ASCII, so byte order is the strings' order), repeats dropped as the list is written.
            for next in 1..<max(1, count) {
                let item = items[next]
                var place = next
                while place > 0 && Self.compare(bytes, item, items[place - 1]) < 0 {
                    items[place] = items[place - 1]
                    place -= 1
                }
                items[place] = item
            }
            // Written straight into the key's `String` (what it holds is never longer than the value it came from).
            return String(unsafeUninitializedCapacity: bytes.count) { list in
                var written = 0
                for index in 0..<count where index == 0 || Self.compare(bytes, items[index], items[index - 1]) != 0 {
                    if written > 0 {
                        list[written] = UInt8(ascii: ",")
                        written += 1
                    }
                    let item = items[index]
                    if let to = list.baseAddress, let from = bytes.baseAddress { memcpy(to + written, from + item.lowerBound, item.count) }
                    written += item.count
                }
                return written
            }
        }
    }

    enum Category {
        case leaf, topLevel, malformed
    }

    /// What an item is: names of lower-case letters, digits and `_` joined by single dots — a leaf with a dot, a top-level
    /// category without one — or malformed.
    static func category(_ item: UnsafeBufferPointer<UInt8>) -> Category {
        var afterDot = true, dotted = false
        for byte in item {
            if byte == UInt8(ascii: ".") {
                guard !afterDot else { return .malformed }
                (afterDot, dotted) = (true, true)
            } else {
                // Bit n of the mask for byte 64 + n: `_` (95) and a–z (97–122); the digits below 64.
                guard byte >= 64 ? byte < 128 && (0x07FF_FFFE_8000_0000 as UInt64) >> UInt64(byte - 64) & 1 != 0 : byte >= 48 && byte <= 57 else {
                    return .malformed
                }
                afterDot = false
            }
        }
        return afterDot ? .malformed : dotted ? .leaf : .topLevel
    }

    /// The order of two items of `bytes`, as `memcmp` gives it (the shorter first when one begins the other).
    private static func compare(_ bytes: UnsafeBufferPointer<UInt8>, _ one: Range<Int>, _ other: Range<Int>) -> Int {
        guard let base = bytes.baseAddress else { return 0 }
        let shared = memcmp(base + one.lowerBound, base + other.lowerBound, min(one.count, other.count))
        return shared != 0 ? Int(shared) : one.count - other.count
    }

    static func limit(_ text: String?) throws -> Int {
        guard let text else { return defaultLimit }
        guard let value = Int(text), limitRange.contains(value) else {
            throw HTTPError(.badRequest, "limit must be a whole number between 1 and 100, not '\(text.prefix(20))'")
        }
        return value
    }

    /// A two-letter language code (Geoapify's `lang`), lower-cased.
    public static func lang(_ text: String?) throws -> String {
        guard let text else { return defaultLang }
        // Two lower-case letters, as the apps send it: the text itself (lowering it and walking its view cost ~230).
        if text.utf8.count == 2, let first = text.utf8.first, let last = text.utf8.last, first &- 97 < 26, last &- 97 < 26 { return text }
        let lower = text.lowercased()
        guard lower.utf8.count == 2, lower.utf8.allSatisfy({ $0 >= 97 && $0 <= 122 }) else {
            throw HTTPError(.badRequest, "lang must be a two-letter language code such as de or en, not '\(text.prefix(20))'")
        }
        return lower
    }
}
