#if canImport(Glibc)
import Glibc
#endif

/// The process's own figures under the names every Prometheus client library uses (`process_resident_memory_bytes`,
/// `process_cpu_seconds_total`, `process_open_fds`, `process_max_fds`, `process_start_time_seconds`), so that the
/// dashboards and alerts an operator already has for other services read Pier too. Read from `/proc/self` when
/// `/metrics` is rendered: nothing is kept between scrapes.
public enum ProcessMetrics {
    public static func register(in registry: MetricsRegistry) {
        let page = Double(sysconf(Int32(_SC_PAGESIZE)))
        let ticks = Double(sysconf(Int32(_SC_CLK_TCK)))
        registry.gauge("process_resident_memory_bytes", help: "Resident memory size in bytes.") {
            // statm: size resident shared … (in pages)
            guard let fields = read("/proc/self/statm")?.split(separator: " "), fields.count > 1, let pages = Double(fields[1]) else { return 0 }
            return pages * page
        }
        registry.counter("process_cpu_seconds_total", help: "User and system CPU time spent in seconds.") {
            guard let fields = statFields(), fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
            return (user + system) / ticks
        }
        registry.gauge("process_open_fds", help: "Open file descriptors.") { Double(openDescriptors()) }
        registry.gauge("process_max_fds", help: "The most file descriptors the process may open.") {
            var limit = rlimit()
            guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 0 }
            return Double(limit.rlim_cur)
        }
        let start = startTime(ticks: ticks)
        registry.gauge("process_start_time_seconds", help: "Start time of the process since the Unix epoch in seconds.") { start }
    }

    /// `/proc/self/stat` from its fourth field on (the state): the command name in parentheses may hold spaces.
    private static func statFields() -> [Substring]? {
        guard let stat = read("/proc/self/stat"), let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    /// Boot time (`btime` of `/proc/stat`) plus the process's start in ticks after boot (field 22 of its stat).
    private static func startTime(ticks: Double) -> Double {
        guard let fields = statFields(), fields.count > 19, let started = Double(fields[19]),
            let line = read("/proc/stat")?.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }),
            let boot = Double(line.dropFirst(6).trimmingSpaces)
        else { return 0 }
        return boot + started / ticks
    }

    private static func openDescriptors() -> Int {
        guard let directory = opendir("/proc/self/fd") else { return 0 }
        defer { closedir(directory) }
        var count = 0
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { $0.first ?? 0 }
            if name != UInt8(ascii: ".") { count += 1 }
        }
        return count - 1  // the directory stream's own descriptor
    }

    /// A small `/proc` file whole (their sizes say 0, so read until the end).
    private static func read(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes.append(contentsOf: buffer[..<count])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var value = self
        while value.first == " " { value = value.dropFirst() }
        while value.last == " " || value.last == "\n" { value = value.dropLast() }
        return value
    }
}
