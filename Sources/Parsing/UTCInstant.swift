
/// Reads and writes ISO 8601 instants in epoch seconds without Foundation's formatters (an upstream document
/// holds hundreds or thousands of them: FMI's series, TfNSW's departures): `Z` or an offset, fractions cut;
/// written as the contract wants them, UTC in whole seconds (`2026-07-05T22:13:00Z`).
public enum UTCInstant {
    /// Epoch seconds of `YYYY-MM-DDThh:mm:ss[.fff](Z|±hh:mm)`; anything else is `nil`.
    public static func parse(_ text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes[4] == 0x2D, bytes[7] == 0x2D, bytes[10] == 0x54 || bytes[10] == 0x20, bytes[13] == 0x3A,
            bytes[16] == 0x3A
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let digit = Int(bytes[index]) - 0x30
                guard (0...9).contains(digit) else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), (1...12).contains(month), (1...31).contains(day), hour < 24,
            minute < 60, second < 61
        else { return nil }
        var index = 19
        if bytes[index] == 0x2E {
            index += 1
            while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
        }
        var offset = 0
        if index == bytes.count - 1, bytes[index] == 0x5A {
            offset = 0
        } else if index == bytes.count - 6, bytes[index] == 0x2B || bytes[index] == 0x2D, bytes[index + 3] == 0x3A,
            let hours = number(index + 1..<index + 3), let minutes = number(index + 4..<index + 6), hours < 24, minutes < 60
        {
            offset = (hours * 3600 + minutes * 60) * (bytes[index] == 0x2D ? -1 : 1)
        } else {
            return nil
        }
        let days = CalendarDate(year: year, month: month, day: day).dayNumber
        return days * 86_400 + hour * 3600 + minute * 60 + second - offset
    }

    /// `2026-07-05T22:13:00Z`.
    public static func write(_ seconds: Int, into output: inout [UInt8]) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - days * 86_400
        let date = CalendarDate(dayNumber: days)
        func two(_ value: Int) {
            output.append(UInt8(0x30 + value / 10))
            output.append(UInt8(0x30 + value % 10))
        }
        let year = min(9999, max(0, date.year))
        two(year / 100)
        two(year % 100)
        output.append(0x2D)
        two(date.month)
        output.append(0x2D)
        two(date.day)
        output.append(0x54)
        two(rest / 3600)
        output.append(0x3A)
        two(rest / 60 % 60)
        output.append(0x3A)
        two(rest % 60)
        output.append(0x5A)
    }

    public static func string(_ seconds: Int) -> String {
        var output: [UInt8] = []
        write(seconds, into: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// `2026-07-05T22:13:00.123Z`: `fraction` of the second written in `digits` digits (log lines: milliseconds;
    /// PostgreSQL's parameters: microseconds).
    public static func string(_ seconds: Int, fraction: Int, digits: Int) -> String {
        var output: [UInt8] = []
        write(seconds, into: &output)
        output.removeLast()  // the `Z`, written again after the fraction
        output.append(0x2E)
        let text = Array(String(fraction).utf8)
        output += [UInt8](repeating: 0x30, count: max(0, digits - text.count)) + text
        output.append(0x5A)
        return String(decoding: output, as: UTF8.self)
    }
}
