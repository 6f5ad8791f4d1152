import Foundation
import Geography
import Synchronization

/// Where the keys the engine's memory holds lie (``OnDemandValueSource/location(of:)``), in squares of a tenth of a
/// degree, for the search among neighbours (``OnDemandCore/nearestHeld(to:within:freshSince:excluding:)``): memory's
/// counterpart of the store's nearest lookup. A hint kept beside memory: every key it gives is looked up there, and a
/// key evicted in a race is merely not found.
///
/// A search looks at the squares its box covers, or at the squares occupied when there are fewer of those: a wide reach
/// (500 km) costs what memory holds, a short one (10 km: a few squares) what lies near — never a walk over every cell of
/// a large box. Inlinable: specialized for the source's key in the feature's module, the walk costs a distance per key,
/// not generic metadata look-ups per dictionary step (perf on the spread's 500 km run had it at 8 % of the time).
@usableFromInline
final class HeldPlaces<Key: Hashable & Sendable>: Sendable {
    @usableFromInline
    struct Square: Hashable, Sendable {
        @usableFromInline let latitude: Int32
        @usableFromInline let longitude: Int32

        @inlinable
        init(_ latitude: Double, _ longitude: Double) {
            self.latitude = Int32((latitude / HeldPlaces.degrees).rounded(.down))
            self.longitude = Int32((longitude / HeldPlaces.degrees).rounded(.down))
        }

        @inlinable
        init(latitude: Int32, longitude: Int32) {
            self.latitude = latitude
            self.longitude = longitude
        }
    }

    /// A square's side in degrees: about 11 km north–south, a neighbour search's usual reach.
    @usableFromInline static var degrees: Double { 0.1 }

    @usableFromInline let squares = Mutex<[Square: [Key: Coordinate]]>([:])

    @usableFromInline init() {}

    @usableFromInline
    func insert(_ key: Key, at point: Coordinate) {
        squares.withLock { $0[Square(point.latitude, point.longitude), default: [:]][key] = point }
    }

    @usableFromInline
    func remove(_ keys: some Sequence<(Key, Coordinate)>) {
        squares.withLock { squares in
            for (key, point) in keys {
                let square = Square(point.latitude, point.longitude)
                squares[square]?[key] = nil
                if squares[square]?.isEmpty == true { squares[square] = nil }
            }
        }
    }

    /// The keys within `kilometres` of `point`, with their distance, `excluding` left out.
    @inlinable
    func near(_ point: Coordinate, within kilometres: Double, excluding: Key?) -> [(key: Key, kilometres: Double)] {
        let box = GreatCircle.box(latitude: point.latitude, longitude: point.longitude, metres: kilometres * 1000)
        let low = Square(box.minLatitude, box.minLongitude), high = Square(box.maxLatitude, box.maxLongitude)
        let covered = (Int(high.latitude) - Int(low.latitude) + 1) * (Int(high.longitude) - Int(low.longitude) + 1)
        var found: [(key: Key, kilometres: Double)] = []
        func look(_ held: [Key: Coordinate]) {
            for (key, place) in held where key != excluding {
                let distance = GreatCircle.kilometres(point.latitude, point.longitude, place.latitude, place.longitude)
                if distance <= kilometres { found.append((key, distance)) }
            }
        }
        squares.withLock { squares in
            if covered <= squares.count {
                for latitude in low.latitude...high.latitude {
                    for longitude in low.longitude...high.longitude {
                        if let held = squares[Square(latitude: latitude, longitude: longitude)] { look(held) }
                    }
                }
            } else {
                for (square, held) in squares
                where (low.latitude...high.latitude).contains(square.latitude) && (low.longitude...high.longitude).contains(square.longitude) {
                    look(held)
                }
            }
        }
        return found
    }
}
