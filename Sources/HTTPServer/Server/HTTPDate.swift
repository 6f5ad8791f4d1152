import Glibc

/// The IMF-fixdate for the `Date` header (`Sun, 06 Nov 1994 08:49:37 GMT`), recomputed once per second.
struct HTTPDate {
    private(set) var bytes: [UInt8] = []
    private var second: Int = -1

    private static let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    init() { refresh() }

    /// Updates the cached text if the wall-clock second changed.
    mutating func refresh() {
        var now = time_t()
        time(&now)
        guard Int(now) != second else { return }
        second = Int(now)
        bytes = Array(Self.format(now).utf8)
    }

    static func format(_ time: time_t) -> String {
        var t = time
        var parts = tm()
        gmtime_r(&t, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(days[Int(parts.tm_wday)]), \(two(parts.tm_mday)) \(months[Int(parts.tm_mon)]) \(parts.tm_year + 1900) "
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)) GMT"
    }
}
