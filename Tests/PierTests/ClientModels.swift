import ShipsFormat
/// The response types as the shipped iOS apps declare them: decoding our JSON with these is the contract test.
struct ShipsAPIResponse: Codable {
    struct DailyDeployment: Codable {
        let date: String
        let routes: [ShipRoute]
    }

    struct ShipRoute: Codable, Equatable {
        let shipName: String
        let courseNumber: String
    }

    struct DebugInfo: Codable {
        let daysProcessed: Int
        let firstDay: String
        let lastDay: String
    }

    let dailyDeployments: [DailyDeployment]
    let lastUpdated: String
    let debug: DebugInfo
}

struct RefreshAPIResponse: Codable {
    let daysProcessed: Int
    let routes: Int
    let lastUpdated: String
}

struct WaterTemperatureAPIResponse: Codable {
    struct Lake: Codable, Equatable {
        let name: String
        let temperature: Double?
        let waterLevel: String?
    }

    struct DebugInfo: Codable {
        let currentSwissTime: String
        let lakesCount: Int
    }

    let lakes: [Lake]
    let lastUpdated: String
    let debug: DebugInfo
}

struct ErrorAPIResponse: Codable {
    let error: String
}

/// `GET /v1/stationboard` as the Next Wave app decodes transport.opendata.ch's answer (`TransportAPI.swift`,
/// `Journey.swift`), plus the `shipName` Pier adds so that the app can drop its second request.
struct StationboardAPIResponse: Decodable {
    struct Coordinate: Decodable {
        let type: String?
        let x: Double?
        let y: Double?
    }

    struct Station: Decodable {
        let id: String?
        let name: String?
        let coordinate: Coordinate?
    }

    struct Prognosis: Decodable {
        let platform: String?
        let arrival: String?
        let departure: String?
        let capacity1st: Int?
        let capacity2nd: Int?
    }

    struct Stop: Decodable {
        let station: Station
        let arrival: String?
        let departure: String?
        let departureTimestamp: Int?
        let delay: Int?
        let platform: String?
        let prognosis: Prognosis?
    }

    struct Journey: Decodable {
        let stop: Stop
        let name: String
        let category: String
        let subcategory: String?
        let categoryCode: Int?
        let number: String?
        let `operator`: String?
        let to: String
        let passList: [Stop]
        let capacity1st: Int?
        let capacity2nd: Int?
        let shipName: String?
    }

    let station: Station?
    let stationboard: [Journey]
}
