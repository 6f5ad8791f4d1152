import Foundation
import PostgRESTFormat

/// A rider's chosen name as the community keeps it: control and invisible formatting characters dropped (the
/// zero-width joiner of emoji sequences kept), trimmed, at most 40 characters (the app's cap: the name is shown on the
/// public leaderboard and to the wave's other riders); empty is anonymous (`null`). A name is made that, never refused:
/// Supabase stored what the Android app's uncapped dialog sent, and a refused name would lose the whole check-in. The
/// import applies the same rules in SQL (``SupabaseImport/storedName(_:)``).
enum DisplayName {
    /// Characters as the app counts them (Swift's: "🏄‍♀️" is one, of four code points).
    static let maximumLength = 40
    /// Code points, which is what the tables bound (Migrations/NextWave/0028): 40 characters of emoji sequences fit, and a
    /// "character" of hundreds of combining marks is cut at this many.
    static let maximumScalars = 200

    /// `value` made a stored name; only a value that is not text (nor null) is refused, naming the column.
    static func normalized(_ value: PostgRESTRows.Value) throws(PostgRESTError) -> PostgRESTRows.Value {
        switch value {
        case .null: return .null
        case .text(let text):
            let name = stored(text)
            return name.isEmpty ? .null : .text(name)
        default:
            throw PostgRESTError(status: 400, code: "22P02", message: "display_name is text or null")
        }
    }

    /// `text` as stored: invisible characters dropped, trimmed, cut to the first 40 characters and 200 code points.
    static func stored(_ text: String) -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars where !isInvisible(scalar) { scalars.append(scalar) }
        let trimmed = String(scalars).trimmingCharacters(in: .whitespacesAndNewlines)
        var kept = String.UnicodeScalarView()
        for character in trimmed.prefix(maximumLength) {
            guard kept.count + character.unicodeScalars.count <= maximumScalars else {
                // A character of more code points than are left: as many of them as fit (never more than the tables take).
                kept.append(contentsOf: character.unicodeScalars.prefix(maximumScalars - kept.count))
                break
            }
            kept.append(contentsOf: character.unicodeScalars)
        }
        return String(kept).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Control characters and formatting ones that show nothing (the joiner of emoji sequences excepted).
    private static func isInvisible(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control: true
        case .format: scalar.value != 0x200D
        default: false
        }
    }
}
