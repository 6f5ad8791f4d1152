import Parsing
import Realtime

// A Realtime client's text message (PhoenixMessage), read in both serializers as a socket reads it. Property: whatever
// either accepts, written again in that serializer, reads back to the same topic, event, refs (join_ref only in
// 2.0.0, whose serializer carries it) and the payload's very bytes.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    for version in [PhoenixVersion.v1, .v2] {
        guard let message = try? PhoenixMessage(bytes, version: version) else { continue }
        let payload = String(decoding: message.text[message.payload.range], as: UTF8.self)
        let written = PhoenixMessage.encode(
            joinRef: message.joinRef, ref: message.ref, topic: message.topic, event: message.event, payload: payload, version: version)
        guard let again = try? PhoenixMessage(Array(written.utf8), version: version) else {
            preconditionFailure("a message written again does not read back")
        }
        precondition(again.topic == message.topic && again.event == message.event && again.ref == message.ref, "the message changed")
        precondition(version == .v1 || again.joinRef == message.joinRef, "join_ref changed")
        precondition(again.text[again.payload.range] == message.text[message.payload.range], "the payload changed")
    }
    return 0
}
