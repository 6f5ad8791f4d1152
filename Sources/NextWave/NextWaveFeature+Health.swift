extension NextWaveFeature {
    /// `/health`'s `nextwave`: `disabled`, or `on` with whether badges are pushed and the users counted.
    struct Health: Encodable, Sendable {
        struct On: Encodable, Sendable {
            let badgePushes: Bool
            let users: Int

            enum CodingKeys: String, CodingKey {
                case badgePushes = "badge_pushes", users
            }
        }

        let state: String
        let on: On?

        enum CodingKeys: String, CodingKey {
            case state
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(state, forKey: .state)
            try on?.encode(to: encoder)
        }
    }
}
