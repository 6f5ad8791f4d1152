import Foundation
import METNorway
import METNorwayFormat

extension GridCell {
    /// The cell as MET Norway is asked for it: its centre, kept under its indices.
    var metNorwayPoint: METNorwayPoint {
        METNorwayPoint(latitudeIndex: latitudeIndex, longitudeIndex: longitudeIndex, latitude: latitude, longitude: longitude)
    }
}

extension Forecast {
    /// MET Norway's steps as hours: the instant values, the period's precipitation and symbol. Past MET's hourly
    /// part a step stands for six hours (its precipitation is the six hours' amount, so a day's sum adds them).
    /// MET's `compact` has no gust and no feels-like: gusts are `null`, feels-like is computed like FMI's.
    init(cell: GridCell, fetchedAt: Date, metNorway forecast: METNorwayForecast) {
        let hours = forecast.steps.map { step in
            Hour(
                validAt: step.time, temperature: step.temperature, windSpeed: step.windSpeed, windDirection: step.windDirection,
                humidity: step.humidity, pressure: step.pressure, precipitation: step.precipitation,
                symbolCode: step.symbol.flatMap(METSymbol.weatherSymbol3))
        }
        self.init(cell: cell, fetchedAt: fetchedAt, hours: hours.filter { !$0.isEmpty }, source: .metNorway)
    }
}
