import Basics
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
        let merged = metadata.merging(event.metadata ?? [:]) { $1 }
        var bytes = JSONWriter.make { json in
            json.object { json in
                json.member("ts", Self.timestamp())
                json.member("level", event.level.rawValue)
                json.member("logger", label)
                json.member("msg", event.message.description)
                for key in merged.keys.sorted() {
                    if let value = merged[key] { json.member(key, value.description) }
                }
            }
        }
        bytes.append(UInt8(ascii: "\n"))
        // One write(2) per line, so lines from different threads never interleave.
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
