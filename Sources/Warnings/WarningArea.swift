/// A warning's area as PostGIS keeps it (`weather_warnings.area`, made valid), held in memory so that a point is
/// looked up without a query: each polygon's rings (an outer ring and any holes `ST_MakeValid` made) behind its
/// bounding box. A point on an edge or a vertex is inside, as `ST_Intersects` says.
struct WarningArea: Sendable, Equatable {
    struct Point: Sendable, Equatable {
        var x: Double
        var y: Double
    }

    struct Polygon: Sendable, Equatable {
        var rings: [[Point]]
        var minX: Double, minY: Double, maxX: Double, maxY: Double

        init(rings: [[Point]]) {
            self.rings = rings
            (minX, minY, maxX, maxY) = (.infinity, .infinity, -.infinity, -.infinity)
            for point in rings.joined() {
                (minX, minY, maxX, maxY) = (min(minX, point.x), min(minY, point.y), max(maxX, point.x), max(maxY, point.y))
            }
        }

        /// Even-odd over every ring (a hole's crossings cancel its outer ring's); an edge or vertex counts as inside.
        func contains(_ point: Point) -> Bool {
            guard point.x >= minX, point.x <= maxX, point.y >= minY, point.y <= maxY else { return false }
            var inside = false
            for ring in rings where ring.count > 1 {
                var previous = ring[ring.count - 1]
                for current in ring {
                    if Self.isOnSegment(point, previous, current) { return true }
                    if (current.y > point.y) != (previous.y > point.y),
                        point.x < (previous.x - current.x) * (point.y - current.y) / (previous.y - current.y) + current.x
                    {
                        inside.toggle()
                    }
                    previous = current
                }
            }
            return inside
        }

        private static func isOnSegment(_ point: Point, _ a: Point, _ b: Point) -> Bool {
            guard point.x >= min(a.x, b.x), point.x <= max(a.x, b.x), point.y >= min(a.y, b.y), point.y <= max(a.y, b.y) else { return false }
            return (b.x - a.x) * (point.y - a.y) - (b.y - a.y) * (point.x - a.x) == 0
        }
    }

    var polygons: [Polygon]

    init(polygons: [Polygon]) {
        self.polygons = polygons
    }

    /// Longitude `x`, latitude `y`, as PostGIS's points.
    func contains(longitude: Double, latitude: Double) -> Bool {
        let point = Point(x: longitude, y: latitude)
        return polygons.contains { $0.contains(point) }
    }

    /// `MULTIPOLYGON(((x y,…),(…)),((…)))` as `ST_AsText` writes it (`MULTIPOLYGON EMPTY` too); `nil` for anything else.
    init?(wellKnownText text: String) {
        let bytes = Array(text.utf8)
        let prefix = Array("MULTIPOLYGON".utf8)
        guard bytes.starts(with: prefix) else { return nil }
        var polygons: [Polygon] = []
        var rings: [[Point]] = []
        var depth = 0
        var ringStart = 0
        for (position, byte) in bytes.enumerated().dropFirst(prefix.count) {
            switch byte {
            case UInt8(ascii: "("):
                depth += 1
                if depth == 3 { ringStart = position + 1 }
            case UInt8(ascii: ")"):
                if depth == 3 {
                    guard let ring = Self.ring(bytes[ringStart..<position]) else { return nil }
                    rings.append(ring)
                } else if depth == 2 {
                    polygons.append(Polygon(rings: rings))
                    rings = []
                }
                depth -= 1
                guard depth >= 0 else { return nil }
            default:
                continue
            }
        }
        guard depth == 0 else { return nil }
        self.polygons = polygons
    }

    /// `x y,x y,…`.
    private static func ring(_ text: ArraySlice<UInt8>) -> [Point]? {
        var points: [Point] = []
        for pair in text.split(separator: UInt8(ascii: ",")) {
            let numbers = pair.split(separator: UInt8(ascii: " ")).compactMap { Double(String(decoding: $0, as: UTF8.self)) }
            guard numbers.count == 2 else { return nil }
            points.append(Point(x: numbers[0], y: numbers[1]))
        }
        return points
    }
}
