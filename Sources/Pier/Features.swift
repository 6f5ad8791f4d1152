import Alplakes
import AppAttest
import Feature
import LakeWeather
import Lakes
import NSWDepartures
import Places
import Ships
import Stationboard
import Sun
import Warnings
import Weather
import Wikipedia

/// Every feature of the service, in the order `/health` lists their sources — the one list the executable
/// holds. `serve`, `fetch <source>`, `routes`, `/health`, the change feed and the status board all go through
/// it. Adding a feature is one line here (and its module in Package.swift).
enum Features {
    /// Each feature reads its settings from `reader` and builds itself on `context`.
    static func make(_ reader: SettingsReader, context: FeatureContext) throws -> [any Feature] {
        let ships = ShipsFeature(settings: try .init(reader), context: context)
        let warnings = WarningsFeature(settings: try .init(reader), context: context)
        return [
            ships,
            LakesFeature(settings: try .init(reader), context: context),
            WeatherFeature(settings: try .init(reader), context: context, warnings: warnings.service),
            warnings,
            StationboardFeature(settings: try .init(reader), context: context, courses: { ships.service.courses }),
            LakeWeatherFeature(settings: try .init(reader), context: context),
            AlplakesFeature(settings: try .init(reader), context: context),
            SunFeature(),
            NSWDeparturesFeature(settings: try .init(reader), context: context),
            PlacesFeature(settings: try .init(reader), context: context),
            WikipediaFeature(settings: try .init(reader), context: context),
            try AppAttestFeature(settings: try .init(reader), context: context),
        ]
    }

    /// The upstreams' parsers `pier bench-parse` times.
    static let parsers = [ShipsFeature.parser, LakesFeature.parser, WeatherFeature.parser, WarningsFeature.parser]
}
