/// ShipTrip's `ExtractedCruiseData` and its ports as the app declares them (every member optional but a port's name):
/// decoding Pier's answer with these is the contract test. The coordinates Pier adds are read by the tests alone.
public struct AppCruise: Decodable, Sendable {
    public struct Port: Decodable, Sendable {
        public let name: String
        public let country: String?
        public let arrivalDate: String?
        public let arrivalTime: String?
        public let departureDate: String?
        public let departureTime: String?
        public let isSeaDay: Bool?
    }

    public let title: String?
    public let shippingLine: String?
    public let ship: String?
    public let startDate: String?
    public let endDate: String?
    public let cabinType: String?
    public let cabinNumber: String?
    public let bookingNumber: String?
    public let ports: [Port]?
}
