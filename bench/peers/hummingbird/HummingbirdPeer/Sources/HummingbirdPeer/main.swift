// Usage: HummingbirdPeer PORT PAYLOAD_FILE
// Serves GET /health (a small JSON body built per request, like pier's) and GET /bench/payload (the exact
// bytes pier serves, read from PAYLOAD_FILE), so scripts/bench compares the servers on identical work.
import Foundation
import Hummingbird

let arguments = CommandLine.arguments
guard arguments.count == 3, let port = Int(arguments[1]) else {
    print("usage: HummingbirdPeer PORT PAYLOAD_FILE")
    exit(2)
}
let payload = try ByteBuffer(bytes: [UInt8](Data(contentsOf: URL(fileURLWithPath: arguments[2]))))
let started = ContinuousClock.now
let json: HTTPFields = [.contentType: "application/json; charset=utf-8"]

let router = Router()
router.get("/health") { _, _ -> Response in
    let uptime = (ContinuousClock.now - started).components.seconds
    let body = "{\"status\":\"ok\",\"version\":\"0.1.0\",\"uptime_s\":\(uptime),\"sources\":{}}"
    return Response(status: .ok, headers: json, body: .init(byteBuffer: ByteBuffer(string: body)))
}
router.get("/bench/payload") { _, _ -> Response in
    Response(status: .ok, headers: json, body: .init(byteBuffer: payload))
}
let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
try await app.runService()
