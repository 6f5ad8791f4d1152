import Foundation

/// A cell's hourly forecast in 20 bytes an hour, for the memory tier (a plain `[Forecast.Hour]` takes 150).
///
/// One flat `[UInt16]`, ten slots an hour: the minutes since the first hour, then the nine parameters as
/// fixed-point `Int16` in hundredths (the symbol code in tenths), offset where the range needs it (pressure
/// around 1000 hPa, direction around 180°). FMI sends at most two decimals, so the round trip is exact;
/// `Int16.min` marks a missing value, and so does a value outside the physical range a slot can hold.
/// A 10-day forecast (240 hours) is 4,800 bytes of slots.
public struct HourlySeries: Sendable, Equatable {
    /// Slots per hour: the time offset and nine values.
    static let stride = 10
    static let missing = Int16.min

    /// Per parameter: scale and offset (in the parameter's unit).
    private static let encodings: [(scale: Double, offset: Double)] = [
        (100, 0),  // temperature, °C
        (100, 0),  // wind speed, m/s
        (100, 180),  // wind direction, °
        (100, 0),  // humidity, %
        (100, 1000),  // pressure, hPa
        (100, 0),  // precipitation, mm
        (10, 0),  // WeatherSymbol3 code
        (100, 0),  // wind gust, m/s
        (100, 0),  // feels-like, °C
    ]

    /// Whole minutes since 1970 of the first hour.
    private let startMinute: Int64
    private let slots: [UInt16]

    /// Packs sorted hours; hours more than 45 days after the first (beyond a `UInt16` of minutes) are dropped.
    public init(hours: [Forecast.Hour]) {
        let start = hours.first.map { Self.minute($0.validAt) } ?? 0
        var slots: [UInt16] = []
        slots.reserveCapacity(hours.count * Self.stride)
        for hour in hours {
            let offset = Self.minute(hour.validAt) - start
            guard offset >= 0, offset <= Int64(UInt16.max) else { continue }
            slots.append(UInt16(offset))
            let values = [
                hour.temperature, hour.windSpeed, hour.windDirection, hour.humidity, hour.pressure, hour.precipitation, hour.symbolCode,
                hour.windGust, hour.feelsLike,
            ]
            for (index, value) in values.enumerated() {
                slots.append(UInt16(bitPattern: Self.encode(value, Self.encodings[index])))
            }
        }
        startMinute = start
        self.slots = slots
    }

    public var count: Int { slots.count / Self.stride }
    public var isEmpty: Bool { slots.isEmpty }

    /// Bytes held (the slots and the array's header).
    public var byteCount: Int { slots.capacity * MemoryLayout<UInt16>.size + 32 }

    public var hours: [Forecast.Hour] {
        (0..<count).map(hour)
    }

    public var lastValidAt: Date? {
        count == 0 ? nil : time(count - 1)
    }

    func hour(_ index: Int) -> Forecast.Hour {
        let base = index * Self.stride + 1
        func value(_ parameter: Int) -> Double? {
            Self.decode(Int16(bitPattern: slots[base + parameter]), Self.encodings[parameter])
        }
        return Forecast.Hour(
            validAt: time(index), temperature: value(0), windSpeed: value(1), windDirection: value(2), humidity: value(3),
            pressure: value(4), precipitation: value(5), symbolCode: value(6), windGust: value(7), feelsLike: value(8))
    }

    private func time(_ index: Int) -> Date {
        Date(timeIntervalSince1970: Double((startMinute + Int64(slots[index * Self.stride])) * 60))
    }

    private static func minute(_ date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / 60).rounded(.down))
    }

    private static func encode(_ value: Double?, _ encoding: (scale: Double, offset: Double)) -> Int16 {
        guard let value, value.isFinite else { return missing }
        let raw = ((value - encoding.offset) * encoding.scale).rounded()
        guard raw > Double(Int16.min), raw <= Double(Int16.max) else { return missing }
        return Int16(raw)
    }

    /// Decoded as (raw + offset × scale) / scale, one rounding, so `1013.2` comes back as `1013.2`.
    private static func decode(_ raw: Int16, _ encoding: (scale: Double, offset: Double)) -> Double? {
        raw == missing ? nil : (Double(raw) + encoding.offset * encoding.scale) / encoding.scale
    }
}
