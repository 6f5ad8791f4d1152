import Foundation
import WarningsFormat

/// The warnings in force, held in memory per published set (FMI's feed has a few hundred areas), so that every point
/// lookup — `/v1/warnings`, the warnings in `/v1/weather`, a device's places — costs no database work: a bounding-box
/// prefilter, then point in polygon. PostGIS stays the store (and answers the same: WarningIndexTests).
struct WarningIndex: Sendable {
    struct Warning: Sendable {
        var identifier: String
        var severity: Int
        var onset: Date
        var expires: Date
        var entries: [WarningLanguage: String]
        var area: WarningArea
    }

    /// Most severe first, then the earlier onset, then the identifier byte by byte — `WarningStore.lookup`'s order.
    let warnings: [Warning]
    /// Which reload made it: a reload that started later never loses to one that started earlier.
    let ticket: Int

    init(_ warnings: [Warning], ticket: Int) {
        self.warnings = warnings.sorted { a, b in
            if a.severity != b.severity { return a.severity > b.severity }
            if a.onset != b.onset { return a.onset < b.onset }
            return a.identifier.utf8.lexicographicallyPrecedes(b.identifier.utf8)
        }
        self.ticket = ticket
    }

    /// Warnings not expired at `now`.
    func count(now: Date) -> Int {
        warnings.count { $0.expires > now }
    }

    /// The entries (in `language`) of every warning whose area contains the point and whose expiry is after `now`, with
    /// each its expiry.
    func lookup(latitude: Double, longitude: Double, language: WarningLanguage, now: Date) -> [(entry: String, expires: Date)] {
        warnings.lazy.filter { $0.expires > now && $0.area.contains(longitude: longitude, latitude: latitude) }
            .map { ($0.entries[language] ?? "{}", $0.expires) }
    }
}
