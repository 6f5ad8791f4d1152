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
        let (created, updated, signedIn) = (Timestamp.microseconds(createdAt), Timestamp.microseconds(updatedAt), Timestamp.microseconds(lastSignInAt))
        return #"{"id":\#(JSONString.quote(id)),"aud":"authenticated","role":"authenticated","email":"","phone":"","last_sign_in_at":"\#(signedIn)","app_metadata":{},"user_metadata":{},"identities":[],"created_at":"\#(created)","updated_at":"\#(updated)","is_anonymous":true}"#
    }
}
