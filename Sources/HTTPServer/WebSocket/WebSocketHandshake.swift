import Foundation

/// The opening handshake's server side (RFC 6455 §4.2): whether a request asks to upgrade as the RFC says, and the
/// `101` that accepts it. A request that is not a valid upgrade is `400`; one for another protocol version `426` with
/// `Sec-WebSocket-Version: 13` (the one spoken). Extensions (`permessage-deflate`) and subprotocols offered are not
/// taken: the `101` names none, and the client speaks plain frames.
public enum WebSocketHandshake {
    /// The GUID the RFC appends to the key.
    static let guid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"

    /// The `Sec-WebSocket-Accept` value for the request's key; else the response refusing the request.
    public static func accept(_ request: HTTPRequest) -> Result<String, HTTPError> {
        guard request.method == .get, request.version != .http1_0 else { return .failure(bad("an upgrade is a GET over HTTP/1.1")) }
        guard has(request.headers, "upgrade", token: "websocket") else { return .failure(bad("Upgrade: websocket is required")) }
        guard has(request.headers, "connection", token: "upgrade") else { return .failure(bad("Connection: Upgrade is required")) }
        guard request.body.isEmpty else { return .failure(bad("an upgrade request carries no body")) }
        let versions = request.headers.values("sec-websocket-version")
        guard versions.count == 1, versions[0].trimmingCharacters(in: .whitespaces) == "13" else {
            return .failure(HTTPError(.upgradeRequired, "this server speaks WebSocket version 13", headers: ["Sec-WebSocket-Version": "13"]))
        }
        let keys = request.headers.values("sec-websocket-key")
        guard keys.count == 1 else { return .failure(bad("one Sec-WebSocket-Key is required")) }
        let key = keys[0].trimmingCharacters(in: .whitespaces)
        guard key.utf8.count == 24, Data(base64Encoded: key)?.count == 16 else {
            return .failure(bad("Sec-WebSocket-Key must be 16 bytes in base64"))
        }
        return .success(acceptValue(for: key))
    }

    /// base64(SHA-1(key + GUID)).
    static func acceptValue(for key: String) -> String {
        Data(SHA1.hash(Array((key + guid).utf8))).base64EncodedString()
    }

    /// Whether any of the header's comma-separated values is `token` (case-insensitive).
    private static func has(_ headers: HTTPHeaders, _ name: String, token: String) -> Bool {
        headers.values(name).contains { value in
            value.split(separator: ",").contains { $0.trimmingCharacters(in: .whitespaces).lowercased() == token }
        }
    }

    private static func bad(_ message: String) -> HTTPError {
        HTTPError(.badRequest, "not a WebSocket handshake: \(message)")
    }
}
