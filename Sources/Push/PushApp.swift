import Feature
import Settings

/// An app the engine pushes to, named by the feature that registers its devices: its device tokens are its own (the
/// same token registered for another app never takes one of this app's), and its pushes go with its APNs topic, signed
/// with its own key where it belongs to another Apple team. What it leaves unset is the engine's (`PIER_APNS_*`).
public struct PushApp: Sendable, Equatable {
    /// The feature's name for it (`warnings`, `nextwave`): stored with every device.
    public var name: String
    /// `<PREFIX>_TOPIC` (the app's bundle id), `<PREFIX>_KEY_FILE`, `<PREFIX>_KEY_ID`, `<PREFIX>_TEAM_ID`.
    public var topic: String?
    public var keyFile: String?
    public var keyID: String?
    public var teamID: String?

    public init(name: String, topic: String? = nil, keyFile: String? = nil, keyID: String? = nil, teamID: String? = nil) {
        self.name = name
        self.topic = topic
        self.keyFile = keyFile
        self.keyID = keyID
        self.teamID = teamID
    }

    /// `name`'s settings under `prefix` (`PIER_NEXTWAVE_APNS`); a key is given whole (file, id and team) or not at all.
    /// `app` names the app in the settings' meanings (`the warnings app`).
    public init(name: String, _ reader: SettingsReader, prefix: String, app: String) throws {
        func read(_ suffix: String, _ meaning: String) -> String? {
            reader.string("\(prefix)_\(suffix)", shown: "PIER_APNS_\(suffix)'s", meaning: meaning).flatMap { $0.isEmpty ? nil : $0 }
        }
        self.init(
            name: name, topic: read("TOPIC", "\(app)'s own topic (its bundle id), when one Pier pushes for several apps"),
            keyFile: read("KEY_FILE", "\(app)'s own APNs key, when it belongs to another Apple team (with _KEY_ID and _TEAM_ID: all three or none)"),
            keyID: read("KEY_ID", "\(app)'s own key's id (with _KEY_FILE and _TEAM_ID)"),
            teamID: read("TEAM_ID", "\(app)'s own key's team (with _KEY_FILE and _KEY_ID)"))
        let given = [keyFile, keyID, teamID].compactMap { $0 }.count
        guard given == 0 || given == 3 else {
            throw SettingsProblem.invalid(
                variable: "\(prefix)_KEY_FILE", value: "(\(given) of 3 set)", expected: "\(prefix)_KEY_FILE, _KEY_ID and _TEAM_ID together, or none")
        }
    }

    /// Whether the engine's own key and topic serve it unchanged.
    var usesDefault: Bool { topic == nil && keyFile == nil }

    /// Its key and topic, what it leaves unset taken from `defaults`.
    func key(over defaults: PushSettings.Key) -> PushSettings.Key {
        PushSettings.Key(file: keyFile ?? defaults.file, id: keyID ?? defaults.id, team: teamID ?? defaults.team, topic: topic ?? defaults.topic)
    }
}
