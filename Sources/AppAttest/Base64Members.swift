import Foundation

/// The base64 members of a JSON object, as the routes read their bodies and `pier app-attest` its standard input:
/// each named member a base64 string; `keyId` and `challenge`, when asked for, 32 bytes.
public enum Base64Members {
    /// Why the object is not the documented JSON, in words (never a value).
    public struct Problem: Error, CustomStringConvertible {
        public let description: String
    }

    /// The members `names` of the JSON object `bytes`, decoded, in that order.
    public static func decode(_ bytes: [UInt8], _ names: [String]) throws(Problem) -> [[UInt8]] {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] else {
            throw Problem(description: "the body must be a JSON object with \(names.joined(separator: ", ")) (base64)")
        }
        var members: [[UInt8]] = []
        for name in names {
            guard let text = object[name] as? String else { throw Problem(description: "\(name) is missing (a base64 string)") }
            guard let decoded = Data(base64Encoded: text), !decoded.isEmpty else { throw Problem(description: "\(name) is not base64") }
            if ["keyId", "challenge"].contains(name), decoded.count != 32 { throw Problem(description: "\(name) is not 32 bytes") }
            members.append(Array(decoded))
        }
        return members
    }
}
