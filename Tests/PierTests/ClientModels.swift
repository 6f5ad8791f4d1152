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
