import ArgumentParser
import Alplakes
import AppAttest
import Backups
import CruiseImport
import Feature
import LakeWeather
import Lakes
import NSWDepartures
import NextWave
import Operations
import Places
import PromoTiles
import Push
import Settings
import Ships
import Stationboard
import Sun
import WarningPush
import Warnings
import Weather
import Wikipedia

/// Every feature of the service, in the order `/health` lists their sources — the one list the executable
/// holds. `serve`, `fetch <source>`, `routes`, `/health`, the change feed, the status board, the features' commands
/// and `bench-parse` all go through it. Adding a feature is its line in ``make(_:context:)`` and its type in ``types``
/// (and its module in Package.swift).
enum Features {
    /// Each feature reads its settings from `reader` and builds itself on `context`.
    static func make(_ reader: SettingsReader, context: FeatureContext) throws -> [any Feature] {
        let ships = ShipsFeature(settings: try .init(reader), context: context)
        // The weather reads the warnings; the warnings' route and pushes read the weather's places.
        let warningSettings = try WarningsFeature.Settings(reader)
        let warnings = WarningsFeature.service(settings: warningSettings, context: context)
        let push = try PushFeature(settings: try .init(reader), context: context)
        let lakes = LakesFeature(settings: try .init(reader), context: context)
        let weather = WeatherFeature(settings: try .init(reader), context: context, warnings: warnings)
        // The cruise import places its ports with the places geocoder.
        let places = PlacesFeature(settings: try .init(reader), context: context)
        let locate: LocatePort? = places.service.map { $0.locator.coordinate(of:country:client:) }
        return [
            ships,
            lakes,
            weather,
            WarningsFeature(settings: warningSettings, context: context, service: warnings, places: weather.places),
            StationboardFeature(settings: try .init(reader), context: context, courses: { ships.service.courses }),
            LakeWeatherFeature(settings: try .init(reader), context: context),
            AlplakesFeature(settings: try .init(reader), context: context),
            SunFeature(),
            NSWDeparturesFeature(settings: try .init(reader), context: context),
            places,
            WikipediaFeature(settings: try .init(reader), context: context),
            try AppAttestFeature(settings: try .init(reader), context: context),
            push,
            try WarningPushFeature(
                context: context, push: push.engine, places: weather.places,
                app: PushApp(name: WarningPushFeature.app, reader, prefix: "PIER_WARNINGS_APNS", app: "the warnings app")),
            try NextWaveFeature(settings: try .init(reader), context: context, push: push.engine),
            CruiseImportFeature(settings: try .init(reader), context: context, locate: locate),
            PromoTilesFeature(context: context),
            BackupsFeature(schedule: try .init(reader), context: context),
            DatabaseFeature(settings: try .init(reader), context: context),
        ]
    }

    /// The features' types, for what each brings without being made: its commands and its parsers.
    static let types: [any Feature.Type] = [
        ShipsFeature.self, LakesFeature.self, WeatherFeature.self, WarningsFeature.self, StationboardFeature.self, LakeWeatherFeature.self,
        AlplakesFeature.self, SunFeature.self, NSWDeparturesFeature.self, PlacesFeature.self, WikipediaFeature.self, AppAttestFeature.self,
        PushFeature.self, WarningPushFeature.self, NextWaveFeature.self, CruiseImportFeature.self, PromoTilesFeature.self,
        BackupsFeature.self, DatabaseFeature.self,
    ]

    /// The features' own `pier` subcommands.
    static var commands: [any ParsableCommand.Type] { types.flatMap { $0.commands } }

    /// What the demo sets where the environment does not.
    static var demoSettings: [String: String] {
        types.reduce(into: [:]) { settings, type in settings.merge(type.demoSettings) { first, _ in first } }
    }

    /// The features' importers, `pier import`'s subcommands.
    static var imports: [any ParsableCommand.Type] { types.flatMap { $0.imports } }

    /// The upstreams' parsers `pier bench-parse` times (and the fuzz targets are checked against).
    static var parsers: [ParseBenchmark] { types.flatMap { $0.parsers } }
}
