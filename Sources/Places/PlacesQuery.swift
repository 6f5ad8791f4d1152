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
                limit: try limit(query[literal: "limit"]), lang: try lang(query[literal: "lang"])))
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
        if let value = wholeNumber(bytes) { return value }
        guard let value = Double(String(decoding: bytes, as: UTF8.self)), value.isFinite, value == value.rounded(), abs(value) < 1e9
        else { return nil }
        return Int(value)
    }

    /// Digits only (at most nine), as `Int(text)` reads them; `nil` for anything else (then `Double(text)` judges).
    private static func wholeNumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 9 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
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
        // The items' places, on the stack (at most `maximumCategories`); one pass over the bytes checks them as it goes.
        return try withUnsafeTemporaryAllocation(of: Range<Int>.self, capacity: maximumCategories) { items in
            var count = 0
            var start = 0, afterDot = true, dotted = false, valid = true
            for index in 0...bytes.count {
                let byte = index < bytes.count ? bytes[index] : UInt8(ascii: ",")
                if byte == UInt8(ascii: ",") {
                    guard count < maximumCategories else { throw HTTPError(.badRequest, "at most \(maximumCategories) categories") }
                    let item = UnsafeBufferPointer(rebasing: bytes[start..<index])
                    guard valid, !afterDot else {
                        throw HTTPError(
                            .badRequest,
                            "categories must be Geoapify category names (lower-case, dotted), not '\(String(decoding: item.prefix(40), as: UTF8.self))'")
                    }
                    guard dotted else {
                        let category = String(decoding: item, as: UTF8.self)
                        throw HTTPError(
                            .badRequest,
                            "top-level category '\(category)' is not accepted; ask for leaf categories such as \(category).attraction or tourism.attraction")
                    }
                    items[count] = start..<index
                    count += 1
                    (start, afterDot, dotted, valid) = (index + 1, true, false, true)
                } else if byte == UInt8(ascii: ".") {
                    valid = valid && !afterDot
                    (afterDot, dotted) = (true, true)
                } else {
                    valid = valid && isNameByte(byte)
                    afterDot = false
                }
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
                    for position in item {
                        list[written] = bytes[position]
                        written += 1
                    }
                }
                return written
            }
        }
    }

    /// A category's bytes besides its dots: lower-case letters, digits and `_`.
    private static func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 97 && byte <= 122) || (byte >= 48 && byte <= 57) || byte == 95
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
        let lower = text.lowercased()
        guard lower.utf8.count == 2, lower.utf8.allSatisfy({ $0 >= 97 && $0 <= 122 }) else {
            throw HTTPError(.badRequest, "lang must be a two-letter language code such as de or en, not '\(text.prefix(20))'")
        }
        return lower
    }
}
