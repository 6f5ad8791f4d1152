import Basics

/// `/health`'s `app_attest`: the mode and, when on, the environments, how many apps, whether a test root is trusted,
/// whether debug devices are on, the devices revoked, the debug devices, and the last hour's spending requests with
/// the share `require` would serve — never an app's id, a key id, a debug name or any token.
enum AppAttestHealth {
    struct On: Encodable, Sendable {
        struct LastHour: Encodable, Sendable {
            let spendingRequests: Int
            let verifiedShare: FixedDecimal?

            enum CodingKeys: String, CodingKey {
                case spendingRequests = "spending_requests", verifiedShare = "verified_share"
            }
        }

        let environment: String
        let apps: Int
        let testRoot: Bool
        let debug: Bool
        let revokedDevices: Int
        let debugDevices: Int
        let lastHour: LastHour

        enum CodingKeys: String, CodingKey {
            case environment, apps, testRoot = "test_root", debug, revokedDevices = "revoked_devices", debugDevices = "debug_devices"
            case lastHour = "last_hour"
        }
    }

    /// `{"mode":…}` and, when on (`on` given), the rest.
    static func object(mode: String, on: On?) -> MergedObject {
        MergedObject([OrderedObject([("mode", mode)]), on])
    }
}
