import Basics
import Parsing

/// One message of the Phoenix channel protocol, read from a client's text frame in either serializer, and written in
/// the socket's. `payload` is an object; refs are strings or `null` (the Python client's heartbeats carry none).
/// Public for its fuzz target (`fuzz/targets/phoenix`).
public struct PhoenixMessage: Sendable {
    public var joinRef: String?
    public var ref: String?
    public var topic: String
    public var event: String
    public var payload: JSONNode
    /// The frame's bytes, for the numbers in ``payload``.
    public var text: [UInt8]

    /// Why a frame is not a Phoenix message (the socket is closed with `1003`: there is no topic to reply on).
    public enum Problem: Error, Equatable {
        case notJSON
        case shape(String)
    }

    public init(_ text: [UInt8], version: PhoenixVersion) throws(Problem) {
        let node: JSONNode
        do { node = try JSONScanner.parse(text) } catch { throw .notJSON }
        self.text = text
        let joinRef: JSONNode?, ref: JSONNode?, topic: JSONNode?, event: JSONNode?, payload: JSONNode?
        switch version {
        case .v1:
            guard node.isObject else { throw .shape("a message is a JSON object in protocol 1.0.0") }
            (joinRef, ref, topic, event, payload) = (node["join_ref"], node["ref"], node["topic"], node["event"], node["payload"])
        case .v2:
            guard let elements = node.elements, elements.count == 5 else { throw .shape("a message is an array of five in protocol 2.0.0") }
            (joinRef, ref, topic, event, payload) = (elements[0], elements[1], elements[2], elements[3], elements[4])
        }
        self.joinRef = try Self.reference(joinRef, "join_ref")
        self.ref = try Self.reference(ref, "ref")
        guard let topic = topic?.string else { throw .shape("topic must be a string") }
        guard let event = event?.string else { throw .shape("event must be a string") }
        guard let payload, payload.isObject else { throw .shape("payload must be an object") }
        (self.topic, self.event, self.payload) = (topic, event, payload)
    }

    private static func reference(_ node: JSONNode?, _ name: String) throws(Problem) -> String? {
        guard let node, !node.isNull else { return nil }
        guard let text = node.string else { throw .shape("\(name) must be a string or null") }
        return text
    }

    /// A message as the socket's serializer writes it; `payload` is JSON text. Protocol 1.0.0 carries no `join_ref`
    /// (Phoenix's V1 serializer writes `topic`, `event`, `payload` and `ref` only).
    public static func encode(joinRef: String?, ref: String?, topic: String, event: String, payload: String, version: PhoenixVersion) -> String {
        JSONWriter.text { json in
            switch version {
            case .v1:
                json.object { json in
                    json.member("event", event)
                    json.member("payload", json: payload.utf8)
                    json.member("ref", ref)
                    json.member("topic", topic)
                }
            case .v2:
                json.array { json in
                    json.string(joinRef)
                    json.string(ref)
                    json.string(topic)
                    json.string(event)
                    json.json(payload.utf8)
                }
            }
        }
    }
}
