import Basics

extension NextWaveFeature {
    /// `/health`'s `nextwave`: `{"state":"disabled"}`, or `on` with whether badges are pushed and the users counted.
    static func health(on: On?) -> MergedObject {
        MergedObject([OrderedObject([("state", on == nil ? "disabled" : "on")]), on])
    }

    struct On: Encodable, Sendable {
        let badgePushes: Bool
        let users: Int

        enum CodingKeys: String, CodingKey {
            case badgePushes = "badge_pushes", users
        }
    }
}
