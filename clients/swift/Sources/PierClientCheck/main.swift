import Foundation
import PierClient

// Calls a running pier with the client generated from openapi.yaml, the way an app would, and checks what
// comes back. Usage: pier-client-check BASE_URL REFRESH_TOKEN. Prints one line per check; exit status 1
// when any failed. PierTests/GeneratedClientTests runs it against the real binary with data loaded.

let arguments = CommandLine.arguments
guard arguments.count == 3, let baseURL = URL(string: arguments[1]) else {
    print("usage: pier-client-check BASE_URL REFRESH_TOKEN")
    exit(2)
}
let client = PierClient.make(baseURL: baseURL)
let authorized = PierClient.make(baseURL: baseURL, refreshToken: arguments[2])
let wrongToken = PierClient.make(baseURL: baseURL, refreshToken: "not-the-token")
nonisolated(unsafe) var failures = 0

func check(_ name: String, _ body: () async throws -> String?) async {
    do {
        if let problem = try await body() {
            failures += 1
            print("FAIL \(name): \(problem)")
        } else {
            print("ok   \(name)")
        }
    } catch {
        failures += 1
        print("FAIL \(name): \(error)")
    }
}

await check("GET /api/ships decodes, and its ETag gives 304") {
    let ships = try await client.getShips().ok
    let body = try ships.body.json
    guard body.debug.daysProcessed == body.dailyDeployments.count, !body.dailyDeployments.isEmpty else {
        return "\(body.dailyDeployments.count) days, daysProcessed \(body.debug.daysProcessed)"
    }
    guard body.dailyDeployments.contains(where: { !$0.routes.isEmpty }) else { return "no routes at all" }
    guard abs(body.lastUpdated.timeIntervalSinceNow) < 3600 else { return "lastUpdated \(body.lastUpdated)" }
    let again = try await client.getShips(headers: .init(ifNoneMatch: ships.headers.eTag))
    guard case .notModified = again else { return "expected 304, got \(again)" }
    return nil
}

await check("GET /ships?date= gives that day only; a malformed date is 400") {
    let week = try await client.getShipsAlias().ok.body.json
    let first = week.dailyDeployments[0].date
    let day = try await client.getShipsAlias(query: .init(date: first)).ok.body.json
    guard day.dailyDeployments.map(\.date) == [first] else { return "\(day.dailyDeployments.map(\.date))" }
    let bad = try await client.getShips(query: .init(date: "2026-02-30"))
    guard case .badRequest(let response) = bad else { return "expected 400, got \(bad)" }
    return try response.body.json.error.isEmpty ? "empty error message" : nil
}

await check("GET /api/water-temp decodes every lake") {
    let lakes = try await client.getWaterTemperature().ok.body.json
    guard lakes.lakes.count == lakes.debug.lakesCount, lakes.lakes.count >= 20 else { return "\(lakes.lakes.count) lakes" }
    guard lakes.lakes.contains(where: { $0.name == "Zürichsee" && $0.temperature != nil }) else { return "no Zürichsee temperature" }
    return nil
}

await check("GET /api/water-temp answers the Next Wave app's lake names; lastUpdated has milliseconds") {
    let lakes = try await client.getWaterTemperature().ok.body.json
    guard lakes.lakes.contains(where: { $0.name == "Lac Léman" }), lakes.lakes.contains(where: { $0.name == "Lago di Lugano" }) else {
        return "no Lac Léman / Lago di Lugano"
    }
    return abs(lakes.lastUpdated.timeIntervalSinceNow) < 3600 ? nil : "lastUpdated \(lakes.lastUpdated)"
}

await check("GET /v1/water-levels decodes a lake's history by either name; an unknown lake is 404, days=0 is 400") {
    let levels = try await client.getWaterLevels(query: .init(lake: "Zürichsee", days: 40)).ok.body.json
    guard let last = levels.last, last.levelM > 100, levels.count <= 40 else { return "\(levels)" }
    _ = try await client.getWaterLevels(query: .init(lake: "lac léman")).ok.body.json
    let unknown = try await client.getWaterLevels(query: .init(lake: "Atlantis"))
    guard case .notFound = unknown else { return "expected 404, got \(unknown)" }
    let bad = try await client.getWaterLevels(query: .init(lake: "Zürichsee", days: 0))
    guard case .badRequest = bad else { return "expected 400, got \(bad)" }
    return nil
}

await check("GET /v1/weather decodes the screen; outside Finland is 422") {
    let weather = try await client.getWeather(query: .init(lat: 60.17, lon: 24.94)).ok.body.json
    guard !weather.station.name.isEmpty, !weather.dailyForecast.isEmpty else { return "empty screen" }
    let outside = try await client.getWeather(query: .init(lat: 48.85, lon: 2.35))
    guard case .unprocessableContent = outside else { return "expected 422, got \(outside)" }
    return nil
}

await check("GET /v1/weather has 48 hours and at most ten days; place=Kumpula echoes FMI's place; an unknown place is 404") {
    let weather = try await client.getWeather(query: .init(lat: 60.17, lon: 24.94)).ok.body.json
    guard weather.hourlyForecast.count == 48, (1...10).contains(weather.dailyForecast.count) else {
        return "\(weather.hourlyForecast.count) hours, \(weather.dailyForecast.count) days"
    }
    let place = try await client.getWeather(query: .init(place: "Kumpula")).ok.body.json
    guard place.location?.name == "Kumpula" else { return "location \(String(describing: place.location))" }
    let unknown = try await client.getWeather(query: .init(place: "Atlantis"))
    guard case .notFound = unknown else { return "expected 404, got \(unknown)" }
    return nil
}

await check("GET /v1/warnings decodes Helsinki's warnings, most severe first, in Finnish too; the weather screen carries them") {
    let english = try await client.getWarnings(query: .init(lat: 60.17, lon: 24.94)).ok.body.json
    guard english.warnings.map(\.color) == [.orange, .yellow] else { return "colours \(english.warnings.map(\.color))" }
    let finnish = try await client.getWarnings(query: .init(place: "Kumpula", lang: .fi)).ok.body.json
    guard finnish.location?.name == "Kumpula", finnish.warnings.first?.language == .fi else { return "\(finnish)" }
    let screen = try await client.getWeather(query: .init(lat: 60.17, lon: 24.94, lang: .sv)).ok.body.json
    guard screen.warnings.first?.severity == .severe else { return "screen warnings \(screen.warnings)" }
    return nil
}

await check("GET /v1/sun decodes; polar night has null events; a bad date is 400") {
    let zurich = try await client.getSun(query: .init(lat: 47.37, lon: 8.54, date: "2026-07-04")).ok.body.json
    guard zurich.status == .ok, zurich.results.sunrise != nil, zurich.results.dayLength > 50_000 else { return "\(zurich)" }
    let utsjoki = try await client.getSun(query: .init(lat: 69.91, lon: 27.03, date: "2026-12-21")).ok.body.json
    guard utsjoki.results.sunrise == nil, utsjoki.results.dayLength == 0 else { return "\(utsjoki.results)" }
    let bad = try await client.getSun(query: .init(lat: 47.37, lon: 8.54, date: "2026-02-30"))
    guard case .badRequest = bad else { return "expected 400, got \(bad)" }
    return nil
}

await check("GET /v1/lake-weather decodes the forecast and its daily summary; the app's appid is accepted and ignored") {
    let forecast = try await client.getLakeWeather(query: .init(lat: 46.5065, lon: 6.6268)).ok.body.json
    guard forecast.list.count == 39, forecast.cnt == 39, !forecast.daily.isEmpty else { return "\(forecast.list.count) slots, \(forecast.daily.count) days" }
    guard forecast.list.allSatisfy({ !$0.weather.isEmpty }) else { return "a slot without weather" }
    let imperial = try await client.getLakeWeather(query: .init(lat: 46.5, lon: 6.6, units: nil, appid: "x"))
    guard case .ok = imperial else { return "expected 200 with an appid, got \(imperial)" }
    return nil
}

await check("GET /v1/lake-temperatures lists the lakes; the Alplakes drop-in profile decodes") {
    let lakes = try await client.getLakeTemperatures().ok.body.json
    guard lakes.lakes.count >= 3, lakes.lakes.contains(where: { $0.key == "upperzurich" && $0.name == "Zürichsee" }) else { return "\(lakes.lakes.map(\.key))" }
    let profile = try await client.getAlplakesProfile(path: .init(lake: "geneva", time: "202611241207")).ok.body.json
    guard profile.depth.data.count == profile.variables.t.data.count else { return "depths and temperatures differ" }
    let unknown = try await client.getAlplakesProfile(path: .init(lake: "atlantis", time: "202611241207"))
    guard case .notFound = unknown else { return "expected 404, got \(unknown)" }
    return nil
}

await check("GET /v1/nsw/departures decodes the app's stop events for a mode; an unknown stop is 404, a bad mode 400") {
    let bus = try await client.getNSWDepartures(query: .init(stop: "G203519", mode: "bus")).ok.body.json
    guard bus.stopEvents.count == 6, bus.stopEvents.allSatisfy({ $0.transportation.colour.background.rawValue == "00B5EF" }) else {
        return "\(bus.stopEvents.count) bus departures"
    }
    guard bus.stopEvents.map(\.departureTime) == bus.stopEvents.map(\.departureTime).sorted() else { return "not sorted by departure time" }
    guard case .notFound = try await client.getNSWDepartures(query: .init(stop: "X1")) else { return "an unknown stop was not 404" }
    guard case .badRequest = try await client.getNSWDepartures(query: .init(stop: "G203519", mode: "tram")) else { return "mode=tram was not 400" }
    return nil
}

await check("GET /v1/geocode and /v1/places decode as the guide app's GeoJSON; a top-level category is 400") {
    let city = try await client.getGeocode(query: .init(text: "Nürnberg", lang: "de")).ok.body.json
    guard let point = city.features.first?.geometry.coordinates, point.count == 2 else { return "no coordinates for Nürnberg" }
    let places = try await client.getPlaces(query: .init(
        lat: point[1], lon: point[0], radius: 5000, categories: "tourism.attraction,entertainment.museum,leisure.park", limit: 50)).ok.body.json
    guard places.features.count == 14, places.features.allSatisfy({ $0.properties.name != nil }) else { return "\(places.features.count) places" }
    guard case .badRequest = try await client.getPlaces(query: .init(lat: point[1], lon: point[0], categories: "tourism")) else {
        return "categories=tourism was not 400"
    }
    return nil
}

await check("GET /v1/wikipedia/{lang}/summary/{title} and …/opensearch pass Wikipedia's JSON; an unknown title is 404") {
    let summary = try await client.getWikipediaSummary(path: .init(lang: "de", title: "Schöner Brunnen")).ok.body.json
    guard summary.title == "Schöner Brunnen", summary.extract?.isEmpty == false else { return "title \(summary.title)" }
    guard case .notFound = try await client.getWikipediaSummary(path: .init(lang: "de", title: "Gibt_es_nicht")) else { return "no 404" }
    let found = try await client.getWikipediaOpenSearch(path: .init(lang: "de"), query: .init(search: "Schöner Brunnen Nürnberg", limit: 5)).ok.body.json
    return found.count == 4 ? nil : "\(found.count) elements"
}

await check("POST /api/ships/refresh: 401 without or with a wrong token, 200 with the token") {
    guard case .unauthorized(let missing) = try await client.refreshShips() else { return "no token was not 401" }
    guard missing.headers.wwwAuthenticate.hasPrefix("Bearer") else { return "WWW-Authenticate: \(missing.headers.wwwAuthenticate)" }
    guard case .unauthorized = try await wrongToken.refreshShipsAlias() else { return "a wrong token was not 401" }
    let refreshed = try await authorized.refreshShips().ok.body.json
    return refreshed.daysProcessed == 7 && refreshed.routes > 0 ? nil : "\(refreshed)"
}

await check("GET /health reports the database and the sources") {
    let health = try await client.getHealth().ok.body.json
    guard health.status == .ok, health.database == .ok else { return "\(health.status) \(health.database)" }
    let sources = health.sources.additionalProperties
    guard Set(sources.keys).isSuperset(of: ["ships", "lakes", "weather"]) else { return "sources \(sources.keys.sorted())" }
    return sources["weather"]?.fmi?.budget == nil ? "no fmi.budget under weather" : nil
}

await check("GET /openapi.json is the document") {
    let document = try await client.getOpenAPIDocument().ok.body.json
    return document.openapi == "3.1.0" ? nil : "openapi \(document.openapi)"
}

print(failures == 0 ? "all checks passed" : "\(failures) check(s) failed")
exit(failures == 0 ? 0 : 1)
