import FMIFormat
import Feature
import Foundation
import Geography
import HTTPServer
import Parsing
import Warnings
import WarningsFormat

/// What a ready `/v1/weather` answer is for — a point (a place's, by name) in a language — and what it was made from
/// that can change at any moment and costs a request next to nothing to read: the stations' and warnings' generations,
/// whether the warnings were stale, and which kind of forecast answered (the own cell's, or a stand-in held for its
/// minute). What changes only with time is the answer's deadline instead (``WeatherRoutes``: the whole hour
/// `hourly_forecast` starts at, the local date, the own forecast's freshness), so a hit reads no clock but `now` and
/// needs no forecast: an answer is found only while all of it still holds, and nothing is checked after the lookup.
struct WeatherAnswerKey: Hashable, Sendable {
    /// The point asked (`lat`/`lon`); `nil` for a place asked by name.
    var point: Coordinate?
    var language: WarningLanguage
    /// The place asked by name, as its resolution is remembered (``PlaceResolver/key(_:)``: text `QueryText` gave, in
    /// NFC); the answer carries FMI's `location`. `nil` for `lat`/`lon`.
    var place: String?
    var stations: Int
    var warnings: Int
    var warningsStale: Bool
    var provenance: ForecastService.Provenance

    /// Hashes what tells the keys held at once apart — the point, or the name asked (by its bytes: it is in NFC, so
    /// the same name is the same bytes) — while `==` still compares every field: the synthesized hash took them all,
    /// two enums hashed by their names' strings (900 instructions of every weather answer). Keys of one point or name
    /// in other generations share a bucket until they expire.
    func hash(into hasher: inout Hasher) {
        if let point {
            hasher.combine(point.latitude)
            hasher.combine(point.longitude)
        } else if let place {
            QueryText.hash(place, into: &hasher)
        }
    }

    /// Hours since 1970 of `date`'s whole hour.
    static func hour(_ date: Date) -> Int {
        Int(FMITime.wholeHour(date).timeIntervalSince1970 / 3600)
    }

    /// Heap bytes the key holds beyond its inline size: a place's name past the 15 bytes a string keeps inline.
    var heapBytes: Int {
        guard let place, place.utf8.count > 15 else { return 0 }
        return place.utf8.count + 32
    }
}
