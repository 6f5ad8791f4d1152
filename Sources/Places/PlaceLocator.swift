import Basics
import Feature
import Foundation
import Geography
import OnDemand
import Parsing
import PlacesFormat
import SharedAnswers

/// Where a named place lies, for other features (a cruise's ports): Geoapify's geocoding through the `geocode` engine,
/// so a name asked once is answered from memory or PostgreSQL for everyone after, and a miss spends the asking client's
/// share of Geoapify's budget and day like any `/v1/geocode` request. A place name is not personal: the key is the name
/// (and country) alone.
public struct PlaceLocator: Sendable {
    private let geocode: OnDemand<SharedAnswerSource<GeocodeKey>>

    init(geocode: OnDemand<SharedAnswerSource<GeocodeKey>>) {
        self.geocode = geocode
    }

    /// The first result's point for `name` (and `country`, when known), or `nil`: nothing found, or Geoapify could not be
    /// asked for this client now (its share, the budget, a pause) — the caller goes on without it.
    public func coordinate(of name: String, country: String?, client: Spender?) async -> Coordinate? {
        let text = [name, country].compactMap { $0 }.joined(separator: ", ")
        guard let key = GeocodeKey(text: text, lang: "en") else { return nil }
        guard case .answer(let answer) = await geocode.core.outcome(for: key, client: client), answer.value.outcome == .found else { return nil }
        return Self.firstPoint(answer.value.body)
    }

    /// The first feature's `[lon, lat]` in a GeoJSON collection (as ``PlacesCollection`` kept it).
    static func firstPoint(_ body: [UInt8]) -> Coordinate? {
        guard let root = try? JSONScanner.parse(body), let first = root["features"]?.elements?.first,
            let pair = first["geometry"]?["coordinates"]?.elements, pair.count >= 2,
            let longitude = pair[0].number(in: body), let latitude = pair[1].number(in: body)
        else { return nil }
        return Coordinate(latitude: latitude, longitude: longitude)
    }
}
