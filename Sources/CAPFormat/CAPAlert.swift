import Foundation
import WarningsFormat

/// One CAP 1.2 `<alert>` as FMI's profile shapes it: what Pier keeps of it (identification, supersession, the
/// texts per language, the area), nothing it does not use.
public struct CAPAlert: Sendable, Equatable {
    public enum MessageType: String, Sendable {
        case alert = "Alert"
        case update = "Update"
        case cancel = "Cancel"
    }

    /// Opaque, unique per sender (the profile: never parse it).
    public var identifier: String
    public var sent: Date
    public var messageType: MessageType
    /// The identifiers of the earlier documents an `Update` or `Cancel` supersedes (the middle of each
    /// `sender,identifier,sent` triple).
    public var references: [String]
    /// One per language the warning was issued in, in the document's order.
    public var infos: [CAPInfo]
    /// Every ring of every area (the areas are the same in every language), as written: latitude first.
    public var rings: [[CAPPoint]]

    public init(identifier: String, sent: Date, messageType: MessageType, references: [String], infos: [CAPInfo], rings: [[CAPPoint]]) {
        self.identifier = identifier
        self.sent = sent
        self.messageType = messageType
        self.references = references
        self.infos = infos
        self.rings = rings
    }

    /// The most severe of the infos (the languages agree in FMI's documents; the worst wins if they do not).
    public var severity: CAPSeverity? { infos.map(\.severity).max() }
    /// The earliest onset and the latest expiry over the infos.
    public var onset: Date? { infos.map(\.onset).min() }
    public var expires: Date? { infos.map(\.expires).max() }
}

/// A vertex of a CAP polygon.
public struct CAPPoint: Sendable, Equatable {
    public var latitude: Double
    public var longitude: Double

    public init(latitude: Double, longitude: Double) {
        self.latitude = latitude
        self.longitude = longitude
    }
}
