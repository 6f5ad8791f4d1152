/// The parts of a stationboard the service tests read (the app's full model is in PierTests' ClientModels).
struct AppStationboard: Decodable {
    var stationboard: [AppJourney]
}

struct AppJourney: Decodable {
    struct Stop: Decodable {
        var departure: String?
    }

    var stop: Stop
    var name: String?
    var `operator`: String?
    /// Pier's addition; present on every journey, `null` when no ZSG ship sails it.
    var shipName: String?
}
