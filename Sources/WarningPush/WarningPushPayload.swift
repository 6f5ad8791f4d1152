import APNsFormat
import Basics
import CAPFormat
import Parsing
import Warnings
import WarningsFormat

/// The pushes a warning makes, in each language, from the warning's own texts (the entry `/v1/warnings` writes: the
/// language asked for, else Finnish, Swedish, English in that order — ``WarningLanguage/fallbacks``). The headline is
/// the title and the description the body, cut at a character so that the whole payload stays within APNs' 4 KB.
enum WarningPushPayload {
    /// `{"aps":{"alert":{"title","body"},"sound":"default","thread-id":"warnings"},"warning":{…}}` for `entry` (an
    /// entry as Warnings stores it: ``StoredWarning``); `root` names the warning across its Updates.
    static func warning(entry: String, root: String) -> String? {
        let bytes = Array(entry.utf8)
        guard let object = try? JSONScanner.parse(bytes), object.isObject else { return nil }
        let headline = object["headline"]?.string ?? object["event"]?.string ?? ""
        let description = object["description"]?.string ?? ""
        // The entry's members the app reads, and the root, in name order.
        let members = (["color", "expires", "onset", "severity", "web"].compactMap { key in object[key]?.string.map { (key, $0) } } + [("id", root)])
            .sorted { $0.0 < $1.0 }
        return fitted(title: headline, body: description) { json in
            json.member("warning", object: { json in for (key, value) in members { json.member(key, value) } })
        }
    }

    /// The all-clear: the warning named by its headline has ended.
    static func allClear(headline: String, root: String, language: WarningLanguage) -> String {
        let title: String
        switch language {
        case .fi: title = "Varoitus on päättynyt"
        case .sv: title = "Varningen har upphört"
        case .en: title = "Warning ended"
        }
        return fitted(title: title, body: headline) { json in
            json.member("warning", object: { json in
                json.member("ended", true)
                json.member("id", root)
            })
        } ?? ""
    }

    /// The payload with `title` and `body`, and what `rest` writes after `aps`, within APNs' limit: the body shortened
    /// first (with "…"), then the title.
    private static func fitted(title: String, body: String, _ rest: (inout JSONWriter) -> Void) -> String? {
        func render(_ title: String, _ body: String) -> String {
            JSONWriter.text { json in
                json.object { json in
                    json.member("aps", object: { json in
                        json.member("alert", object: { json in
                            json.member("body", body)
                            json.member("title", title)
                        })
                        json.member("sound", "default")
                        json.member("thread-id", "warnings")
                    })
                    rest(&json)
                }
            }
        }
        let limit = APNsNotification.maximumPayloadBytes
        let whole = render(title, body)
        if whole.utf8.count <= limit { return whole }
        let withoutBody = render(title, "")
        if withoutBody.utf8.count + 8 <= limit {
            return render(title, shortened(body, by: whole.utf8.count - limit))
        }
        let bare = render("", "")
        guard bare.utf8.count + 8 <= limit else { return nil }
        return render(shortened(title, by: withoutBody.utf8.count - limit), "")
    }

    /// `text` without enough trailing characters to save `excess` bytes of JSON, with "…" in their place (escapes
    /// count: a character's JSON may be longer than its UTF-8).
    private static func shortened(_ text: String, by excess: Int) -> String {
        var kept = Substring(text)
        var saved = 0
        while saved < excess + 3, let last = kept.last {
            saved += JSONWriter.quoted(String(last)).utf8.count - 2
            kept = kept.dropLast()
        }
        return kept + "…"
    }

    /// APNs allows 64 bytes of `apns-collapse-id`; FMI's identifiers are shorter, anything longer is cut.
    static func collapseID(_ root: String) -> String {
        root.utf8.count <= 64 ? root : String(decoding: Array(root.utf8.suffix(64)), as: UTF8.self)
    }
}
