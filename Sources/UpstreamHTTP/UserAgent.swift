import Foundation

/// The `User-Agent` Pier sends to upstreams that ask to be told who calls them (Wikimedia, MET Norway).
public enum UserAgent {
    /// `Pier/0.1.0 (https://example.org; ops@example.org)`: `<product>/<version> (<contact>)`, the form both policies
    /// ask for; without a contact, the product alone.
    public static func identifying(product: String, contact: String?) -> String {
        guard let contact = contact?.trimmingCharacters(in: .whitespaces), !contact.isEmpty else { return product }
        // A header value cannot hold line breaks or other controls.
        let clean = String(contact.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.map(Character.init))
        return "\(product) (\(clean))"
    }
}
