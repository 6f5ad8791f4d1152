import Basics
import Parsing
import Foundation

/// An anonymous user as Supabase's auth server shows it (`/auth/v1/user`, and inside a session): what supabase-swift
/// and supabase-kt decode — `id`, `aud`, `created_at` and `updated_at` are required, the rest is what an anonymous
/// user has.
public struct AuthUser: Sendable, Equatable {
    /// Lower-case UUID.
    public var id: String
    public var createdAt: Date
    public var updatedAt: Date
    public var lastSignInAt: Date

    public var json: String {
        let (created, updated, signedIn) = (Self.instant(createdAt), Self.instant(updatedAt), Self.instant(lastSignInAt))
        return #"{"id":\#(JSONString.quote(id)),"aud":"authenticated","role":"authenticated","email":"","phone":"","last_sign_in_at":"\#(signedIn)","app_metadata":{},"user_metadata":{},"identities":[],"created_at":"\#(created)","updated_at":"\#(updated)","is_anonymous":true}"#
    }

    /// RFC 3339 with microseconds, UTC, as the auth server writes its times.
    static func instant(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        let whole = seconds.rounded(.down)
        let micros = min(999_999, Int(((seconds - whole) * 1_000_000).rounded()))
        let text = String(micros)
        return UTCInstant.string(Int(whole)).dropLast() + "." + String(repeating: "0", count: 6 - text.count) + text + "Z"
    }
}
