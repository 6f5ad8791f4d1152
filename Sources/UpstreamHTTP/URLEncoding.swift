import Foundation

/// Percent-encoding of values Pier puts into upstream URLs.
public enum URLEncoding {
    /// RFC 3986's unreserved characters, ASCII only (`CharacterSet.alphanumerics` would leave `ü` unescaped).
    static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// A query value: everything but the unreserved characters escaped (`&`, `=`, `+`, spaces, UTF-8 bytes).
    public static func queryValue(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}
