import Basics
import Foundation
import Parsing

/// Pier's `daily` addition to a forecast: one entry per local date of the point, from that date's slots —
/// the true minimum and maximum (not one slot's), the morning and afternoon temperatures, the strongest
/// wind and gust, and the day's most severe weather.
public struct DailySummary: Sendable, Equatable {
    public var date: CalendarDate
    public var minimum: Double
    public var maximum: Double
    /// The slot within 90 minutes of 09:00 / 15:00 local time (the nearest; the earlier on a tie).
    public var morning: Double?
    public var afternoon: Double?
    /// m/s.
    public var windMaximum: Double
    public var gustMaximum: Double?
    public var weatherID: Int

    /// Knots per metre per second.
    static let knotsPerMetrePerSecond = 1.943844

    /// One summary per local date, in date order.
    public static func days(_ slots: [ForecastDocument.Slot], utcOffset: Int) -> [DailySummary] {
        var byDate: [Int: [ForecastDocument.Slot]] = [:]
        for slot in slots {
            byDate[Self.floorDivide(slot.time + utcOffset, 86_400), default: []].append(slot)
        }
        return byDate.keys.sorted().compactMap { day in
            guard let slots = byDate[day], !slots.isEmpty else { return nil }
            let temperatures = slots.map(\.temperature)
            let gusts = slots.compactMap(\.gust)
            // Daytime by OpenWeather's own `sys.pod`, else 06:00–21:00 local; a date without a daytime slot
            // (polar night, a date that starts in the evening) uses all of its slots.
            let daytime = slots.filter { slot in
                slot.daytime ?? (6 * 3600..<21 * 3600).contains(Self.secondOfDay(slot.time, utcOffset: utcOffset))
            }
            let weather = (daytime.isEmpty ? slots : daytime).map(\.weatherID).max { Self.severity($0) < Self.severity($1) } ?? 800
            return DailySummary(
                date: CalendarDate(dayNumber: day), minimum: temperatures.min() ?? 0, maximum: temperatures.max() ?? 0,
                morning: Self.temperature(near: 9 * 3600, in: slots, utcOffset: utcOffset),
                afternoon: Self.temperature(near: 15 * 3600, in: slots, utcOffset: utcOffset),
                windMaximum: slots.map(\.windSpeed).max() ?? 0, gustMaximum: gusts.max(), weatherID: weather)
        }
    }

    /// The temperature of the slot nearest `target` seconds after local midnight, within 90 minutes.
    static func temperature(near target: Int, in slots: [ForecastDocument.Slot], utcOffset: Int) -> Double? {
        let candidates = slots.map { (slot: $0, distance: abs(secondOfDay($0.time, utcOffset: utcOffset) - target)) }
            .filter { $0.distance <= 90 * 60 }
        return candidates.min { ($0.distance, $0.slot.time) < ($1.distance, $1.slot.time) }?.slot.temperature
    }

    /// How bad a weather id is, for "the day's weather": thunderstorm 2xx > snow 6xx > rain 5xx > drizzle 3xx >
    /// atmosphere 7xx > clouds 804…801 > clear 800; within a group, the higher id.
    static func severity(_ id: Int) -> (Int, Int) {
        let group = switch id / 100 {
        case 2: 7
        case 6: 6
        case 5: 5
        case 3: 4
        case 7: 3
        case 8: id == 800 ? 1 : 2
        default: 0
        }
        return (group, id)
    }

    static func secondOfDay(_ time: Int, utcOffset: Int) -> Int {
        let local = time + utcOffset
        return local - floorDivide(local, 86_400) * 86_400
    }

    static func floorDivide(_ value: Int, _ divisor: Int) -> Int {
        value >= 0 ? value / divisor : (value - divisor + 1) / divisor
    }

    /// The `daily` array: `date`, `temp_min`, `temp_max`, `morning_temp`, `afternoon_temp`, `wind_max`,
    /// `wind_max_kn` (one decimal), `gust_max`, `weather_id`; unknown values `null`.
    public static func json(_ days: [DailySummary]) -> [UInt8] {
        JSONWriter.make(reservingCapacity: days.count * 200) { json in
            json.array { json in
                for day in days {
                    let knots = (day.windMaximum * knotsPerMetrePerSecond * 10).rounded() / 10
                    json.object { json in
                        json.member("date", "\(day.date)")
                        json.member("temp_min", day.minimum)
                        json.member("temp_max", day.maximum)
                        json.member("morning_temp", day.morning)
                        json.member("afternoon_temp", day.afternoon)
                        json.member("wind_max", day.windMaximum)
                        json.member("wind_max_kn", knots)
                        json.member("gust_max", day.gustMaximum)
                        json.member("weather_id", day.weatherID)
                    }
                }
            }
        }
    }
}
