/// One push as APNs takes it: to one device token, a JSON payload of at most 4 KB, and the headers that say how APNs
/// should treat it.
public struct APNsNotification: Sendable, Equatable {
    /// APNs refuses a larger payload with `413 PayloadTooLarge`.
    public static let maximumPayloadBytes = 4096

    public var deviceToken: String
    public var environment: APNsEnvironment
    public var payload: [UInt8]
    /// `apns-collapse-id` (at most 64 bytes): a later push with the same one replaces this one on the device.
    public var collapseID: String?
    /// `apns-expiration`, seconds since 1970: APNs stores the push for an offline device until then; 0 tries once.
    public var expiration: Int64
    /// `apns-priority`: 10 at once, 5 when the device sees fit.
    public var priority: Int
    /// `apns-push-type`.
    public var pushType: String

    public init(
        deviceToken: String, environment: APNsEnvironment, payload: [UInt8], collapseID: String? = nil, expiration: Int64 = 0,
        priority: Int = 10, pushType: String = "alert"
    ) {
        self.deviceToken = deviceToken
        self.environment = environment
        self.payload = payload
        self.collapseID = collapseID
        self.expiration = expiration
        self.priority = priority
        self.pushType = pushType
    }

    /// APNs' device tokens are hex (32 bytes today; Apple reserves the right to lengthen them, so up to 200 characters).
    public static func isDeviceToken(_ text: String) -> Bool {
        let utf8 = text.utf8
        return utf8.count >= 16 && utf8.count <= 200 && utf8.count % 2 == 0
            && utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) || ($0 >= 0x41 && $0 <= 0x46) }
    }
}
