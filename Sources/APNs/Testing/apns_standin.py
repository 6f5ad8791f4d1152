"""APNs stand-in for Pier's tests and benchmark: HTTP/2 over TLS (h2, a trustme test CA), checking what Apple checks.

    apns_standin.py --dir DIR --key-id KID --team-id TEAM --topic TOPIC --public-key PEM [--count-only]

Writes DIR/ca.pem (the test CA Pier is pointed at with PIER_APNS_CA_FILE) and DIR/ports ("<push port> <control port>")
once it listens. Each push is checked as Apple does — the provider token (ES256 over the header and claims, `kid`,
`iss`, age under an hour), `apns-topic`, `apns-push-type`, the path's hex device token, the payload's size and JSON —
and answered as Apple would (403 InvalidProviderToken / ExpiredProviderToken, 400 BadDeviceToken, MissingTopic,
BadTopic, InvalidPushType, PayloadEmpty, 413 PayloadTooLarge). A connection starts with one concurrent stream, as APNs
does, and gets 1000 after its first success.

The control port (plain HTTP/1.1 on loopback) is the test's:
    GET  /received          every push taken so far, JSON lines (token, headers, the payload as text, the answer given,
                            when, and the number of the connection it came on: 1 for the first one made)
    GET  /stats             {"connections":…, "max_streams_seen":…, "tokens_seen":…, "pushes":…}

--count-only (the benchmark's own-rate run) keeps the count instead of every push: /received is empty.
    POST /script            {"<device token>": [{"status": 410, "reason": "Unregistered", "timestamp": 1700000000000}, …]}
                            answers given, in order, to that token's next pushes (then 200 again); the key "*"
                            applies to every token
    POST /reset             forgets the pushes and the script
    POST /delay             {"ms": N}: every answer waits N ms (a slow APNs)
"""

import argparse
import asyncio
import base64
import json
import os
import ssl
import time
import uuid

import h2.config
import h2.connection
import h2.events
import h2.settings
import trustme
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

PUSH_TYPES = {"alert", "background", "location", "voip", "complication", "fileprovider", "mdm", "liveactivity", "pushtotalk"}


class State:
    def __init__(self, args):
        self.args = args
        with open(args.public_key, "rb") as handle:
            self.public_key = serialization.load_pem_public_key(handle.read())
        self.received = []
        self.script = {}
        self.delay_ms = 0
        self.connections = 0
        self.max_streams_seen = 0
        self.tokens_seen = set()
        self.pushes = 0
        self.connections_made = 0

    def scripted(self, device):
        for key in (device, "*"):
            queue = self.script.get(key)
            if queue:
                return queue.pop(0)
        return None


def b64url(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def check_token(state, authorization, now):
    """None when the provider token is good, else APNs' reason."""
    if not authorization.startswith("bearer "):
        return "MissingProviderToken"
    token = authorization[len("bearer "):]
    parts = token.split(".")
    if len(parts) != 3:
        return "InvalidProviderToken"
    try:
        header = json.loads(b64url(parts[0]))
        claims = json.loads(b64url(parts[1]))
        signature = b64url(parts[2])
    except ValueError:
        return "InvalidProviderToken"
    if header.get("alg") != "ES256" or header.get("kid") != state.args.key_id or claims.get("iss") != state.args.team_id:
        return "InvalidProviderToken"
    if len(signature) != 64:
        return "InvalidProviderToken"
    issued = claims.get("iat")
    if not isinstance(issued, int) or issued > now + 60:
        return "InvalidProviderToken"
    if now - issued > 3600:
        return "ExpiredProviderToken"
    if token in state.tokens_seen:
        # Verified once already (APNs too checks a token once, not on every push).
        return None
    der = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    try:
        state.public_key.verify(der, (parts[0] + "." + parts[1]).encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        return "InvalidProviderToken"
    state.tokens_seen.add(token)
    return None


def judge(state, headers, path, body):
    """(status, reason) as APNs would answer, before any script."""
    if headers.get(":method") != "POST":
        return 405, "MethodNotAllowed"
    if not path.startswith("/3/device/"):
        return 404, "BadPath"
    device = path[len("/3/device/"):]
    reason = check_token(state, headers.get("authorization", ""), int(time.time()))
    if reason:
        return 403, reason
    topic = headers.get("apns-topic")
    if not topic:
        return 400, "MissingTopic"
    if topic != state.args.topic:
        return 400, "BadTopic"
    if headers.get("apns-push-type") not in PUSH_TYPES:
        return 400, "InvalidPushType"
    if not device or len(device) % 2 or any(c not in "0123456789abcdefABCDEF" for c in device):
        return 400, "BadDeviceToken"
    if not body:
        return 400, "PayloadEmpty"
    if len(body) > 4096:
        return 413, "PayloadTooLarge"
    collapse = headers.get("apns-collapse-id")
    if collapse is not None and len(collapse.encode()) > 64:
        return 400, "BadCollapseId"
    expiration = headers.get("apns-expiration")
    if expiration is not None and not expiration.isdigit():
        return 400, "BadExpirationDate"
    return 200, None


class PushConnection(asyncio.Protocol):
    def __init__(self, state):
        self.state = state
        config = h2.config.H2Configuration(client_side=False, header_encoding="utf-8")
        self.conn = h2.connection.H2Connection(config=config)
        self.streams = {}
        self.open_streams = 0
        self.raised = False

    def connection_made(self, transport):
        self.transport = transport
        self.state.connections += 1
        self.state.connections_made += 1
        self.number = self.state.connections_made
        self.conn.local_settings = h2.settings.Settings(client=False, initial_values={h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 1})
        self.conn.initiate_connection()
        self.transport.write(self.conn.data_to_send())

    def data_received(self, data):
        try:
            events = self.conn.receive_data(data)
        except Exception:
            self.transport.close()
            return
        for event in events:
            if isinstance(event, h2.events.RequestReceived):
                self.streams[event.stream_id] = {"headers": dict(event.headers), "body": bytearray()}
                self.open_streams += 1
                self.state.max_streams_seen = max(self.state.max_streams_seen, self.open_streams)
            elif isinstance(event, h2.events.DataReceived):
                stream = self.streams.get(event.stream_id)
                if stream is not None:
                    stream["body"] += event.data
                self.conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
            elif isinstance(event, h2.events.StreamEnded):
                asyncio.ensure_future(self.answer(event.stream_id))
        self.transport.write(self.conn.data_to_send())

    async def answer(self, stream_id):
        stream = self.streams.pop(stream_id, None)
        if stream is None:
            return
        if self.state.delay_ms:
            await asyncio.sleep(self.state.delay_ms / 1000)
        headers, body = stream["headers"], bytes(stream["body"])
        path = headers.get(":path", "")
        status, reason = judge(self.state, headers, path, body)
        device = path[len("/3/device/"):]
        timestamp = None
        if status == 200:
            scripted = self.state.scripted(device)
            if scripted:
                status, reason, timestamp = scripted.get("status", 200), scripted.get("reason"), scripted.get("timestamp")
        apns_id = headers.get("apns-id") or str(uuid.uuid4()).upper()
        self.state.pushes += 1
        if not self.state.args.count_only:
            self.state.received.append({
                "token": device,
                "topic": headers.get("apns-topic"),
                "push_type": headers.get("apns-push-type"),
                "priority": headers.get("apns-priority"),
                "expiration": headers.get("apns-expiration"),
                "collapse_id": headers.get("apns-collapse-id"),
                "payload": body.decode("utf-8", "replace"),
                "status": status,
                "reason": reason,
                "at": time.time(),
                "connection": self.number,
            })
        response_headers = [(":status", str(status)), ("apns-id", apns_id)]
        data = b""
        if reason:
            document = {"reason": reason}
            if timestamp is not None:
                document["timestamp"] = timestamp
            data = json.dumps(document).encode()
            response_headers.append(("content-type", "application/json"))
        self.open_streams -= 1
        try:
            self.conn.send_headers(stream_id, response_headers, end_stream=not data)
            if data:
                self.conn.send_data(stream_id, data, end_stream=True)
            if status == 200 and not self.raised:
                self.raised = True
                self.conn.update_settings({h2.settings.SettingCodes.MAX_CONCURRENT_STREAMS: 1000})
            self.transport.write(self.conn.data_to_send())
        except Exception:
            self.transport.close()

    def connection_lost(self, exc):
        self.state.connections -= 1


async def control(state, reader, writer):
    try:
        request_line = (await reader.readline()).decode("latin-1").split()
        length = 0
        while True:
            line = (await reader.readline()).decode("latin-1").strip()
            if not line:
                break
            name, _, value = line.partition(":")
            if name.lower() == "content-length":
                length = int(value.strip())
        body = await reader.readexactly(length) if length else b""
        method, path = request_line[0], request_line[1]
        status, answer = 200, b""
        if method == "GET" and path == "/received":
            answer = "".join(json.dumps(push) + "\n" for push in state.received).encode()
        elif method == "GET" and path == "/stats":
            answer = json.dumps({"connections": state.connections, "max_streams_seen": state.max_streams_seen,
                                 "tokens_seen": len(state.tokens_seen), "pushes": state.pushes}).encode()
        elif method == "POST" and path == "/script":
            for device, answers in json.loads(body).items():
                state.script.setdefault(device, []).extend(answers)
        elif method == "POST" and path == "/reset":
            state.received.clear()
            state.pushes = 0
            state.script.clear()
            state.delay_ms = 0
        elif method == "POST" and path == "/delay":
            state.delay_ms = int(json.loads(body)["ms"])
        else:
            status = 404
        writer.write(b"HTTP/1.1 %d X\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % (status, len(answer)) + answer)
        await writer.drain()
    finally:
        writer.close()


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--key-id", required=True)
    parser.add_argument("--team-id", required=True)
    parser.add_argument("--topic", required=True)
    parser.add_argument("--public-key", required=True)
    parser.add_argument("--count-only", action="store_true")
    args = parser.parse_args()
    state = State(args)

    authority = trustme.CA()
    authority.cert_pem.write_to_path(os.path.join(args.dir, "ca.pem"))
    certificate = authority.issue_cert("localhost", "127.0.0.1")
    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    certificate.configure_cert(context)
    context.set_alpn_protocols(["h2"])

    loop = asyncio.get_running_loop()
    push = await loop.create_server(lambda: PushConnection(state), "127.0.0.1", 0, ssl=context)
    ctl = await asyncio.start_server(lambda r, w: control(state, r, w), "127.0.0.1", 0)
    ports = "%d %d" % (push.sockets[0].getsockname()[1], ctl.sockets[0].getsockname()[1])
    with open(os.path.join(args.dir, "ports.partial"), "w") as handle:
        handle.write(ports)
    os.rename(os.path.join(args.dir, "ports.partial"), os.path.join(args.dir, "ports"))
    await asyncio.Event().wait()


if __name__ == "__main__":
    asyncio.run(main())
