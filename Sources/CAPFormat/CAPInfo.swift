import Foundation
import WarningsFormat

/// One `<info>` of a CAP alert: the warning in one language.
public struct CAPInfo: Sendable, Equatable {
    /// As written (`fi-FI`, `sv-FI`, `en-GB`).
    public var language: String
    /// FMI's display text for the event code in this language (shown, never decided on).
    public var event: String
    /// The profile's event code (`wind`, `rain`, …): what an app decides on (its icon); empty when missing.
    public var eventCode: String
    public var severity: CAPSeverity
    public var onset: Date
    public var expires: Date
    public var headline: String
    public var description: String
    public var web: String

    public init(
        language: String, event: String, eventCode: String, severity: CAPSeverity, onset: Date, expires: Date, headline: String,
        description: String, web: String
    ) {
        self.language = language
        self.event = event
        self.eventCode = eventCode
        self.severity = severity
        self.onset = onset
        self.expires = expires
        self.headline = headline
        self.description = description
        self.web = web
    }
}
