import Basics
import Foundation
import HTTPServer
import Parsing

/// One Realtime socket's side of the Phoenix channel protocol, on its event loop: heartbeats, joins with their
/// postgres_changes bindings and access token, token refreshes and expiry, leaves; everything else refused in the
/// reply, as Phoenix and Supabase word it. Its channels live in the ``RealtimeHub`` while joined.
final class RealtimeSocket: WebSocketHandler {
    /// A joined channel's own state (its bindings are the hub's).
    private struct Joined {
        var joinRef: String?
        var token: String
        var expires: Int64?
        /// How many bindings the hub holds for it.
        var bindings: Int
    }

    /// Bindings held over all the socket's channels (``RealtimeSettings/bindingsPerSocket``).
    private var bindingsHeld: Int { channels.values.reduce(0) { $0 + $1.bindings } }

    private let server: RealtimeServer
    private let socket: WebSocket
    private let version: PhoenixVersion
    /// The socket's `apikey`: a channel's token when its join sends none (Supabase's tenant token).
    private let key: String
    private var channels: [String: Joined] = [:]
    /// The message budget (``RealtimeSettings/messagesPerSecond``, a burst of ``RealtimeSettings/messageBurst``).
    private var budget: TokenBucket

    init(server: RealtimeServer, socket: WebSocket, version: PhoenixVersion, key: String) {
        self.server = server
        self.socket = socket
        self.version = version
        self.key = key
        budget = TokenBucket(ratePerSecond: server.settings.messagesPerSecond, capacity: server.settings.messageBurst, now: Self.seconds())
    }

    func received(_ message: WebSocketMessage, on socket: WebSocket) {
        guard budget.take(now: Self.seconds()) else {
            socket.close(.policyViolation, reason: "too many messages")
            return
        }
        switch message {
        case .binary(let bytes): binary(bytes)
        case .text(let text):
            do throws(PhoenixMessage.Problem) {
                handle(try PhoenixMessage(Array(text.utf8), version: version))
            } catch {
                switch error {
                case .notJSON: socket.close(.unsupportedData, reason: "not JSON")
                case .shape(let problem): socket.close(.unsupportedData, reason: problem)
                }
            }
        }
    }

    func closed(_ code: WebSocketCloseCode?) {
        for topic in channels.keys { server.hub.unsubscribe(key(topic)) }
        channels.removeAll()
    }

    private func handle(_ message: PhoenixMessage) {
        // A ref and the topic are echoed in the reply, and a join's in every event of its channel: long ones would make
        // each large.
        guard (message.ref?.utf8.count ?? 0) <= RealtimeSettings.maxRefBytes, (message.joinRef?.utf8.count ?? 0) <= RealtimeSettings.maxRefBytes else {
            return socket.close(.policyViolation, reason: "a ref longer than \(RealtimeSettings.maxRefBytes) bytes")
        }
        guard message.topic.utf8.count <= RealtimeSettings.maxTopicBytes else {
            return socket.close(.policyViolation, reason: "a topic longer than \(RealtimeSettings.maxTopicBytes) bytes")
        }
        if message.topic == "phoenix" {
            guard message.event == "heartbeat" else { return reply(message, .failure(.unmatchedTopic)) }
            reply(message, .success("{}"))
            expireTokens()
            return
        }
        switch message.event {
        case "phx_join": join(message)
        case "phx_leave": leave(message)
        case _ where channels[message.topic] == nil: reply(message, .failure(.unmatchedTopic))
        case "access_token": refresh(message)
        case "broadcast": reply(message, .failure(.broadcast))
        case "presence": reply(message, .failure(.presence))
        default: break  // Supabase ignores what it does not know on a joined channel.
        }
    }

    // MARK: Joining and leaving

    private func join(_ message: PhoenixMessage) {
        let topic = message.topic
        guard topic.hasPrefix("realtime:") else { return reply(message, .failure(.unmatchedTopic)) }
        // Joining a joined topic again replaces the channel (Phoenix closes the old one first).
        if let old = channels[topic] { close(topic, old) }
        guard channels.count < server.settings.channelsPerSocket else { return refuseJoin(message, .tooManyChannels) }
        let bindings: [PostgresChangeBinding]
        switch Self.bindings(of: message.payload, published: server.tables.all, most: server.settings.bindingsPerChannel) {
        case .failure(let refusal): return refuseJoin(message, refusal)
        case .success(let read): bindings = read
        }
        let token = message.payload["access_token"]?.string ?? message.payload["user_token"]?.string
        let used = token.flatMap { $0.hasPrefix("sb_") ? nil : $0 } ?? key
        let expires: Int64?
        switch judge(used) {
        case .refused(let problem): return refuseJoin(message, .token(problem))
        case .valid(let until): expires = until
        }
        guard bindingsHeld + bindings.count <= server.settings.bindingsPerSocket,
            server.hub.subscribe(key(topic), .init(socket: socket, version: version, topic: topic, joinRef: message.joinRef, bindings: bindings))
        else { return refuseJoin(message, .tooManyBindingsHeld) }
        channels[topic] = Joined(joinRef: message.joinRef, token: used, expires: expires, bindings: bindings.count)
        server.joined(refused: nil)
        reply(message, .success(JSONWriter.text { json in
            json.object { json in json.member("postgres_changes", array: { json in for binding in bindings { json.json(binding.json.utf8) } }) }
        }))
        system(topic, joinRef: message.joinRef, extension: "postgres_changes", status: "ok", message: "Subscribed to PostgreSQL")
    }

    /// The join's bindings, or why it is refused: presence, broadcast-only and private channels are not served.
    private static func bindings(of payload: JSONNode, published: [RealtimeTable], most: Int) -> Result<[PostgresChangeBinding], RealtimeRefusal> {
        let config = payload["config"]
        if case .bool(true)? = config?["private"]?.kind { return .failure(.privateChannel) }
        if case .bool(true)? = config?["presence"]?["enabled"]?.kind { return .failure(.presence) }
        guard let entries = config?["postgres_changes"]?.elements, !entries.isEmpty else { return .failure(.nothingToSubscribe) }
        guard entries.count <= most else { return .failure(.tooManyBindings) }
        var bindings: [PostgresChangeBinding] = []
        for entry in entries {
            switch PostgresChangeBinding.read(entry, published: published) {
            case .failure(let refusal): return .failure(refusal)
            case .success(let binding): bindings.append(binding)
            }
        }
        return .success(bindings)
    }

    private func refuseJoin(_ message: PhoenixMessage, _ refusal: RealtimeRefusal) {
        server.joined(refused: refusal)
        reply(message, .failure(refusal))
    }

    private func leave(_ message: PhoenixMessage) {
        reply(message, .success("{}"))
        if let joined = channels[message.topic] { close(message.topic, joined) }
    }

    /// Ends a channel: out of the hub, and `phx_close` to the client (Phoenix's notice that a channel ended).
    private func close(_ topic: String, _ joined: Joined) {
        channels[topic] = nil
        server.hub.unsubscribe(key(topic))
        send(joinRef: joined.joinRef, ref: joined.joinRef, topic: topic, event: "phx_close", payload: "{}")
    }

    // MARK: Tokens

    /// `access_token`: a refreshed token replaces the channel's; a refused one ends the channel (Supabase's shutdown:
    /// a `system` error, then `phx_close`). `null`, the same token and a publishable `sb_` key change nothing.
    private func refresh(_ message: PhoenixMessage) {
        guard var joined = channels[message.topic], let token = message.payload["access_token"]?.string,
            !token.hasPrefix("sb_"), token != joined.token
        else { return }
        switch judge(token) {
        case .valid(let expires):
            joined.token = token
            joined.expires = expires
            channels[message.topic] = joined
        case .refused(let problem):
            shutDown(message.topic, joined, problem.message)
        }
    }

    /// Channels whose token expired end, as Supabase ends them (checked at each heartbeat: a client that lets its
    /// session lapse hears it within one).
    private func expireTokens() {
        let now = Int64(Date().timeIntervalSince1970)
        for (topic, joined) in channels {
            guard let expires = joined.expires, expires <= now else { continue }
            shutDown(topic, joined, RealtimeToken.Problem.expired(secondsAgo: now - expires).message)
        }
    }

    private func shutDown(_ topic: String, _ joined: Joined, _ reason: String) {
        system(topic, joinRef: joined.joinRef, extension: "system", status: "error", message: reason)
        close(topic, joined)
    }

    // MARK: Binary frames

    /// Protocol 2.0.0's binary frames are broadcasts (kind 3: `[kind][join_ref, ref, topic, event, meta lengths]
    /// [encoding][…]`): refused in a reply when the header names a topic, else the socket is closed (`1003`).
    private func binary(_ bytes: [UInt8]) {
        guard version == .v2, bytes.count >= 7, bytes[0] == 3 else { return socket.close(.unsupportedData, reason: "binary frames carry broadcasts only") }
        let lengths = bytes[1..<6].map(Int.init)
        guard 7 + lengths.reduce(0, +) <= bytes.count else { return socket.close(.unsupportedData, reason: "broadcast header longer than the frame") }
        var offset = 7
        func field(_ length: Int) -> String {
            defer { offset += length }
            return String(decoding: bytes[offset..<(offset + length)], as: UTF8.self)
        }
        let joinRef = field(lengths[0]), ref = field(lengths[1]), topic = field(lengths[2])
        send(joinRef: joinRef.isEmpty ? nil : joinRef, ref: ref.isEmpty ? nil : ref, topic: topic, event: "phx_reply", payload: Self.reply(.failure(.broadcast)))
    }

    // MARK: Writing

    private func reply(_ message: PhoenixMessage, _ result: Result<String, RealtimeRefusal>) {
        send(joinRef: message.joinRef, ref: message.ref, topic: message.topic, event: "phx_reply", payload: Self.reply(result))
    }

    private static func reply(_ result: Result<String, RealtimeRefusal>) -> String {
        JSONWriter.text { json in
            json.object { json in
                switch result {
                case .success(let response):
                    json.member("response", json: response.utf8)
                    json.member("status", "ok")
                case .failure(let refusal):
                    json.member("response", object: { $0.member("reason", refusal.reason) })
                    json.member("status", "error")
                }
            }
        }
    }

    /// A `system` message, as Supabase pushes it (no ref).
    private func system(_ topic: String, joinRef: String?, extension name: String, status: String, message: String) {
        let channel = String(topic.dropFirst("realtime:".count))
        let payload = JSONWriter.text { json in
            json.object { json in
                json.member("channel", channel)
                json.member("extension", name)
                json.member("message", message)
                json.member("status", status)
            }
        }
        send(joinRef: joinRef, ref: nil, topic: topic, event: "system", payload: payload)
    }

    private func send(joinRef: String?, ref: String?, topic: String, event: String, payload: String) {
        socket.send(.text(PhoenixMessage.encode(joinRef: joinRef, ref: ref, topic: topic, event: event, payload: payload, version: version)))
    }

    private func key(_ topic: String) -> RealtimeHub.Key {
        RealtimeHub.Key(socket: ObjectIdentifier(self), topic: topic)
    }

    /// Seconds on the monotonic clock, for the budget.
    private static func seconds() -> Double {
        Double(MonotonicClock.now()) / 1e9
    }

    /// What `token` is worth: the socket's own `apikey` was verified at the upgrade.
    private func judge(_ token: String) -> RealtimeToken {
        token == key ? .valid(expires: nil) : server.access.check(token: token)
    }
}
