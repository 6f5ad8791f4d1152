import FMIFormat
import Feature
import Foundation
import Geography
import Parsing
import Warnings
import WarningsFormat

/// What a ready `/v1/weather` answer is for — a point (a place's, by name) in a language — and everything it was made
/// from that a request can check before looking it up: the stations' and warnings' generations, the local date and
/// hour, and which forecast answered (the own cell's by its fetch; a stand-in by its kind only, held for its minute).
/// An answer is found only while all of it still holds, so nothing is checked after the lookup.
struct WeatherAnswerKey: Hashable, Sendable {
    var point: Coordinate
    var language: WarningLanguage
    /// The place asked by name (the answer carries its `location`); `nil` for `lat`/`lon`.
    var place: String?
    var stations: Int
    var today: CalendarDate
    /// The whole hour (hours since 1970) `hourly_forecast` starts at.
    var hour: Int
    var warnings: Int
    var warningsStale: Bool
    var provenance: ForecastService.Provenance
    /// The own cell's forecast's fetch; `nil` for a stand-in.
    var fetchedAt: Date?

    /// Hashes what tells the keys held at once apart — the point and the place — while `==` still compares every
    /// field: the synthesized hash took all eleven, two of them enums hashed by their names' strings (900 instructions
    /// of every weather answer). Keys of one point in other hours or generations share a bucket until they expire.
    func hash(into hasher: inout Hasher) {
        hasher.combine(point.latitude)
        hasher.combine(point.longitude)
        hasher.combine(place)
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

    /// Made from `answer`'s forecast.
    func made(from answer: ForecastService.Answer) -> Self {
        var key = self
        key.provenance = answer.provenance
        key.fetchedAt = answer.provenance == .own ? answer.forecast.fetchedAt : nil
        return key
    }
}
