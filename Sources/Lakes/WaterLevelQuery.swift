import Feature
import HTTPServer

/// The parameters of `GET /v1/water-levels`, checked: the lake as asked (either name, any case) and the days.
public struct WaterLevelQuery: Sendable, Equatable {
    public var lake: String
    public var days: Int

    /// The Next Wave app's analytics screen asks for 40 days.
    public static let defaultDays = 40
    public static let dayRange = 1...LakeService.historyDays

    public init(lake: String, days: Int = WaterLevelQuery.defaultDays) {
        self.lake = lake
        self.days = days
    }

    /// Reads the request's query; a missing or bad parameter is a `400` that names it.
    public init(_ query: QueryParameters) throws {
        let lake = try QueryText.normalised(
            query["lake"], parameter: "lake", maximumLength: 100, example: "a lake's name as /api/water-temp lists it, e.g. lake=Zürichsee")
        var days = Self.defaultDays
        if let text = query["days"] {
            guard let parsed = Int(text), Self.dayRange.contains(parsed) else {
                throw HTTPError(.badRequest, "days must be a whole number from \(Self.dayRange.lowerBound) to \(Self.dayRange.upperBound)")
            }
            days = parsed
        }
        self.init(lake: lake, days: days)
    }
}
