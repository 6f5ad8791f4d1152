import Foundation
import PostgRESTFormat

/// A rider's chosen name as the community keeps it: trimmed, at most 40 characters (the app's cap: the name is shown on
/// the public leaderboard and to the wave's other riders), no control characters; empty is anonymous (`null`).
enum DisplayName {
    /// Characters as the app counts them (Swift's: "🏄‍♀️" is one, of four code points).
    static let maximumLength = 40
    /// Code points, which is what the tables bound (Migrations/0028): 40 characters of emoji sequences fit.
    static let maximumScalars = 200

    /// `value` made a stored name, or the refusal naming the column (never the name).
    static func normalized(_ value: PostgRESTRows.Value) throws(PostgRESTError) -> PostgRESTRows.Value {
        switch value {
        case .null: return .null
        case .text(let text):
            let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
            guard !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control || $0.properties.generalCategory == .format && $0.value != 0x200D }) else {
                throw PostgRESTError(status: 400, code: "23514", message: "display_name may not contain control characters")
            }
            guard trimmed.count <= maximumLength, trimmed.unicodeScalars.count <= maximumScalars else {
                throw PostgRESTError(status: 400, code: "23514", message: "display_name is at most \(maximumLength) characters")
            }
            return trimmed.isEmpty ? .null : .text(trimmed)
        default:
            throw PostgRESTError(status: 400, code: "22P02", message: "display_name is text or null")
        }
    }
}
