/// `/health`'s `push` while the engine runs: `ok` or `failing` (the outbox could not be read), the pushes waiting and
/// the oldest one's wait, the devices registered, and the last delivery.
struct PushHealth: Encodable, Sendable {
    let state: String
    let pending: Int
    let oldestPendingSeconds: Int
    let devices: Int
    let lastDelivery: String?

    enum CodingKeys: String, CodingKey {
        case state, pending, oldestPendingSeconds = "oldest_pending_s", devices, lastDelivery = "last_delivery"
    }
}
