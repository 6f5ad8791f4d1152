/// The Phoenix serializer a socket asked for with `vsn`: 1.0.0 speaks JSON objects (supabase-kt, the Python client),
/// 2.0.0 JSON arrays `[join_ref, ref, topic, event, payload]` (supabase-swift's default).
public enum PhoenixVersion: String, Sendable, Hashable {
    case v1 = "1.0.0"
    case v2 = "2.0.0"

    /// `vsn` as the query gave it; Phoenix's default when absent.
    init?(query value: String?) {
        guard let value else {
            self = .v1
            return
        }
        self.init(rawValue: value)
    }
}
