import Basics
import Foundation
import Parsing

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
        JSONWriter.text { write(to: &$0) }
    }

    /// The user as the writer's next value.
    func write(to json: inout JSONWriter) {
        json.object { json in
            json.member("id", id)
            json.member("aud", "authenticated")
            json.member("role", "authenticated")
            json.member("email", "")
            json.member("phone", "")
            json.member("last_sign_in_at", Timestamp.microseconds(lastSignInAt))
            json.member("app_metadata", object: { _ in })
            json.member("user_metadata", object: { _ in })
            json.member("identities", array: { _ in })
            json.member("created_at", Timestamp.microseconds(createdAt))
            json.member("updated_at", Timestamp.microseconds(updatedAt))
            json.member("is_anonymous", true)
        }
    }
}
