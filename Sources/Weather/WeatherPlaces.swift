import Basics
import Feature
import HTTPServer
import Warnings

/// The weather's points and place names as `/v1/warnings` reads them: any valid point (no warning lies outside FMI's
/// areas), or a place FMI names (``PlaceResolver``, on FMI's budget and the asker's share).
struct WeatherPlaces: WarningPlaces {
    let places: PlaceResolver

    func whereabouts(of request: HTTPRequest) throws -> WarningWhereabouts {
        Self.warning(try WeatherRoutes.whereabouts(of: request, places: places, anywhere: true))
    }

    func whereabouts(ofPlace name: String, for request: HTTPRequest) throws -> WarningWhereabouts {
        Self.warning(try WeatherRoutes.whereabouts(named: name, for: request, places: places))
    }

    private static func warning(_ whereabouts: WeatherRoutes.Whereabouts) -> WarningWhereabouts {
        switch whereabouts {
        case .known(let point, let place):
            return .known(point, location: place.map { place in JSONWriter.text { place.write(to: &$0) } })
        case .resolving(let resolve):
            return .resolving {
                let (point, place, _) = try await resolve()
                return (point, JSONWriter.text { place.write(to: &$0) })
            }
        }
    }
}
