import Glibc
import HTTPServer
import Logging
import Parsing

/// Writes one JSON object per line to standard output: `{"ts":…,"level":…,"logger":…,"msg":…, metadata…}`.
struct JSONLogHandler: LogHandler {
    let label: String
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    init(label: String, level: Logger.Level) {
        self.label = label
        self.logLevel = level
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        var line = "{\"ts\":\"\(Self.timestamp())\",\"level\":\"\(event.level.rawValue)\",\"logger\":\(JSONString.quote(label)),\"msg\":\(JSONString.quote(event.message.description))"
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        for key in merged.keys.sorted() {
            if let value = merged[key] {
                line += ",\(JSONString.quote(key)):\(JSONString.quote(value.description))"
            }
        }
        line += "}\n"
        // One write(2) per line, so lines from different threads never interleave.
        var bytes = Array(line.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(STDOUT_FILENO, $0.baseAddress.map { $0 + offset }, $0.count - offset) }
            if written <= 0 { return }
            offset += written
        }
    }

    /// ISO 8601 UTC with milliseconds.
    static func timestamp() -> String {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return UTCInstant.string(now.tv_sec, fraction: now.tv_nsec / 1_000_000, digits: 3)
    }
}
