#!/usr/bin/env python3
"""Live check-ins tried as an attacker would (issue 65), against a running pier with the community on. A healthy
subscriber joins as the iPhone app does (protocol 2.0.0, the app's channel, every event of wave_checkins) and a healthy
rider checks in to a fresh wave every 0.6 s (within a rider's share); each attack runs while that goes on, and prints
one JSON line: what it sent, what happened, the healthy subscriber's delivery p50/p99 (from the check-in's request to
the event's arrival) and events missed, and pier's CPU per event and in all. The first line is the undisturbed run.
With --check the run fails when a bound did not hold (counts only: speed is the benchmark's to say).
Pier trusts loopback as its proxy, so X-Forwarded-For's right-most entry is the address a socket counts as.

  undisturbed        the healthy pair alone
  pings-unread       sockets that ping as fast as they can and never read: closed (1008), pier's memory flat
  sockets-flood      sockets from many addresses (each its own /24) until refused: at most four fifths of the
                     connection cap are sockets; then plain connections until refused: /health/live still answers
                     (the reserve), and while the sockets are held sign-ups and REST answer too
  bindings-flood     sockets joining 10 channels of 16 bindings that match nothing: each socket keeps at most 32,
                     the rest refused; a change costs what its subscribers cost
  long-join-ref      joins with a 30,000-byte join_ref (or topic): the socket is closed (1008), nothing echoed
  row-flood          one rider's 100 fresh waves a request and their deletion, as fast as answered: charged per row
  unfinished-message a 60 KiB first fragment kept open with empty continuations: closed at the message timeout (1008)
  long-filters       10 channels a socket with a 63,000-character filter: each refused in the join's reply

Usage: realtime_attacks.py PIER_URL ANON_KEY PIER_PID [--scale small|full] [--check] [--message-timeout S]
Standard library only (the benchmark's python3)."""
import argparse, base64, http.client, json, os, select, socket, struct, sys, threading, time, urllib.parse

import attack_client
from attack_client import Run, utc

parser = argparse.ArgumentParser()
parser.add_argument("url")
parser.add_argument("anon")
parser.add_argument("pid", type=int)
parser.add_argument("--scale", choices=["small", "full"], default="small")
parser.add_argument("--check", action="store_true")
parser.add_argument("--message-timeout", type=float, default=10.0, help="pier's PIER_WEBSOCKET_MESSAGE_TIMEOUT_S")
parser.add_argument("--only", help="comma-separated attacks to run (all by default)")
args = parser.parse_args()
target = urllib.parse.urlparse(args.url)
FULL = args.scale == "full"
run = Run()
check = run.check


# ---- pier's own figures

def cpu_ns():
    total = 0
    for task in os.listdir(f"/proc/{args.pid}/task"):
        try:
            with open(f"/proc/{args.pid}/task/{task}/schedstat") as stat:
                total += int(stat.read().split()[0])
        except OSError:
            pass
    return total


def rss_mb():
    return attack_client.rss_mb(args.pid)


def metric(name):
    connection = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
    connection.request("GET", "/metrics")
    text = connection.getresponse().read().decode()
    connection.close()
    total = 0.0
    for line in text.splitlines():
        if line.startswith(name + " ") or line.startswith(name + "{"):
            total += float(line.rsplit(" ", 1)[1])
    return total


# ---- HTTP

def Client(address, bearer=None):
    return attack_client.Client(target, args.anon, address, bearer)


def rider(address):
    """A new anonymous rider, speaking on the sign-up's connection (open before an attack fills the rest)."""
    client = Client(address)
    uid, token = client.sign_up()
    return client, uid, token


def checkin(client, uid, wave):
    row = {"wave_id": wave, "user_id": uid, "departure_at": utc(3600), "station_id": "S", "lake_id": "L"}
    return client.request("POST", "/rest/v1/wave_checkins?on_conflict=wave_id,user_id", row, {"Prefer": "resolution=merge-duplicates"})[0]


# ---- WebSockets (RFC 6455, a client's side)

class Refused(Exception):
    def __init__(self, status):
        super().__init__(f"upgrade refused: {status}")
        self.status = status


class Socket:
    # Every socket an attack opened, closed when its run ends whatever happened (the next attack starts clean).
    opened = []

    def __init__(self, address, vsn="2.0.0", timeout=10):
        self.sock = socket.create_connection((target.hostname, target.port), timeout=timeout)
        Socket.opened.append(self)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET /realtime/v1/websocket?apikey={args.anon}&vsn={vsn} HTTP/1.1\r\nHost: pier\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nX-Forwarded-For: {address}\r\n\r\n").encode())
        while b"\r\n\r\n" not in self.buffer:
            chunk = self.sock.recv(4096)
            if not chunk:
                self.close()
                raise Refused(0)
            self.buffer += chunk
        head, self.buffer = self.buffer.split(b"\r\n\r\n", 1)
        status = int(head.split(b" ", 2)[1])
        if status != 101:
            self.close()
            raise Refused(status)

    @staticmethod
    def frame(opcode, payload=b"", fin=True):
        # Masked with a zero key: masking is required, its key may be anything (and zero costs no copy).
        n = len(payload)
        head = bytes([(0x80 if fin else 0) | opcode])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 65536:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        return head + b"\0\0\0\0" + payload

    def send(self, opcode, payload=b"", fin=True):
        self.sock.sendall(self.frame(opcode, payload, fin))

    def text(self, message):
        self.send(1, json.dumps(message, separators=(",", ":")).encode())

    def join(self, topic, join_ref, bindings, token=None):
        self.text([join_ref, join_ref, topic, "phx_join", attack_client.join_payload(bindings, token or args.anon)])

    def read(self):
        """One frame (opcode, payload); None when the connection ends."""
        def need(count):
            while len(self.buffer) < count:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return False
                self.buffer += chunk
            return True
        if not need(2):
            return None
        opcode, n = self.buffer[0] & 0x0F, self.buffer[1] & 0x7F
        start = 2
        if n == 126:
            if not need(4):
                return None
            n, start = struct.unpack(">H", self.buffer[2:4])[0], 4
        elif n == 127:
            if not need(10):
                return None
            n, start = struct.unpack(">Q", self.buffer[2:10])[0], 10
        if not need(start + n):
            return None
        payload, self.buffer = self.buffer[start:start + n], self.buffer[start + n:]
        return opcode, payload

    def replies(self, count, seconds=5):
        """The payloads of the next `count` `phx_reply` messages (fewer if the socket ends or falls silent)."""
        self.sock.settimeout(seconds)
        found = []
        while len(found) < count:
            got = self.read()
            if got is None:
                break
            message = json.loads(got[1]) if got[0] == 1 else None
            if message and message[3] == "phx_reply":
                found.append(message[4])
        return found

    def close_code(self, seconds):
        """The code of the server's close frame within `seconds` (frames before it skipped); 0 when the connection
        ended without one, None when nothing came in time."""
        self.sock.settimeout(seconds)
        try:
            while True:
                got = self.read()
                if got is None:
                    return 0
                if got[0] == 8:
                    return struct.unpack(">H", got[1][:2])[0] if len(got[1]) >= 2 else 1005
        except (socket.timeout, OSError):
            return None

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


# ---- the healthy pair

class Healthy:
    """The iPhone app's subscriber and a rider checking in to a fresh wave every 0.6 s (100 a minute: within a rider's
    share of writes), each check-in's latency measured from its request to the event's arrival."""

    def __init__(self):
        self.socket = Socket("192.0.2.200")
        self.socket.join("realtime:wave_checkins_live", "1", [{"event": "*", "schema": "public", "table": "wave_checkins"}])
        self.arrived = {}
        self.lock = threading.Lock()
        self.running = True
        self.reader = threading.Thread(target=self.read, daemon=True)
        self.reader.start()
        self.heart = threading.Thread(target=self.heartbeat, daemon=True)
        self.heart.start()
        self.sequence = 0
        self.riders = 0

    def read(self):
        self.socket.sock.settimeout(None)
        while self.running:
            try:
                got = self.socket.read()
            except OSError:
                return
            if got is None:
                return
            opcode, payload = got
            if opcode != 1:
                continue
            message = json.loads(payload)
            if message[3] != "postgres_changes":
                continue
            data = message[4]["data"]
            wave = (data.get("record") or data.get("old_record") or {}).get("wave_id")
            with self.lock:
                self.arrived.setdefault(wave, time.monotonic())

    def heartbeat(self):
        beat = 0
        while self.running:
            time.sleep(5)  # well within any idle timeout (the test shortens it)
            beat += 1
            try:
                self.socket.text([None, f"hb{beat}", "phoenix", "heartbeat", {}])
            except OSError:
                return

    def rider(self):
        """A rider of its own for each run (a rider holds at most 100 check-ins), signed up before the attack starts."""
        self.riders += 1
        client, uid, _ = rider(f"192.0.{2 + self.riders}.201")
        return client, uid

    def measure(self, seconds, phase, writer):
        """`writer`'s check-ins for `seconds`: (latencies in ms, missed, statuses)."""
        client, uid = writer
        sent, statuses = {}, {}
        stop = time.monotonic() + seconds
        while time.monotonic() < stop:
            self.sequence += 1
            wave = f"healthy-{phase}-{self.sequence}"
            started = time.monotonic()
            status = checkin(client, uid, wave)
            statuses[status] = statuses.get(status, 0) + 1
            if status != 201 and os.environ.get("REALTIME_ATTACKS_DEBUG"):
                print(f"healthy check-in: {status} {client.last!r}", file=sys.stderr)
            if status == 201:
                sent[wave] = started
            time.sleep(max(0, 0.6 - (time.monotonic() - started)))
        time.sleep(1)  # the last events' way (milliseconds)
        with self.lock:
            latencies = sorted((self.arrived[wave] - at) * 1000 for wave, at in sent.items() if wave in self.arrived)
        return latencies, len(sent) - len(latencies), statuses


def percentile(values, p):
    return round(values[min(len(values) - 1, int(len(values) * p))], 1) if values else None


class Phase(threading.Event):
    """Set when the measuring ends; `ready` is set by an attack that first builds what it then holds (sockets,
    bindings) once it holds it: the measuring starts then, so its figures are those of the held state."""

    def __init__(self):
        super().__init__()
        self.ready = threading.Event()


def play(name, attack, seconds, holds=False):
    """Runs `attack(stop)` in a thread while the healthy pair measures for `seconds` (from when it holds what it builds,
    with `holds`); reports both."""
    writer = healthy.rider()
    rss0 = rss_mb()
    facts = {}
    stop = Phase()
    def attacking():
        try:
            facts.update(attack(stop) or {})
        except Exception as error:  # an attack that breaks is a failed run, never a silent one
            facts["error"] = repr(error)
            check(False, f"{name}: {error!r}")
    worker = threading.Thread(target=attacking, daemon=True) if attack else None
    started = time.monotonic()
    if worker:
        worker.start()
        if holds:
            stop.ready.wait(timeout=600)
            facts["setup_s"] = round(time.monotonic() - started, 1)
        else:
            time.sleep(0.5)
    events0, cpu0, t0 = metric("pier_realtime_events_total"), cpu_ns(), time.monotonic()
    latencies, missed, statuses = healthy.measure(seconds, name, writer)
    # pier's figures over the measuring alone (a held attack's setup before it, its teardown after it).
    events, cpu, elapsed, rss = metric("pier_realtime_events_total") - events0, cpu_ns() - cpu0, time.monotonic() - t0, rss_mb()
    stop.set()
    if worker:
        worker.join(timeout=120)
    for opened in Socket.opened:
        if opened is not healthy.socket:
            opened.close()
    Socket.opened = [healthy.socket]
    report = {"attack": name, **facts, "healthy_p50_ms": percentile(latencies, 0.5), "healthy_p99_ms": percentile(latencies, 0.99),
              "healthy_missed": missed, "healthy_statuses": statuses, "events": int(events),
              "cpu_ms_per_event": round(cpu / 1e6 / events, 2) if events else None, "pier_cpu_pct": round(cpu / 1e9 / elapsed * 100, 1),
              "rss_growth_mb": round(rss - rss0, 1)}
    print(json.dumps(report), flush=True)
    check(missed == 0 and set(statuses) == {201}, f"{name}: the healthy rider's check-ins {statuses}, events missed {missed}")
    if name == "pings-unread":
        check(report["rss_growth_mb"] < 50, f"pings-unread: pier grew by {report['rss_growth_mb']} MB")
    return report


# ---- the attacks

def pings_unread(stop):
    count = 10 if FULL else 2
    sockets = [Socket(f"198.18.1.{i}") for i in range(count)]
    sent = [0] * count
    for index, attacker in enumerate(sockets):
        attacker.sock.setblocking(False)
        ping = Socket.frame(9, b"x" * 125)
        for _ in range(200_000):
            try:
                attacker.sock.send(ping)
                sent[index] += 1
            except BlockingIOError:
                time.sleep(0.001)
            except OSError:
                break
    codes = []
    for attacker in sockets:
        attacker.sock.setblocking(True)
        codes.append(attacker.close_code(5))
        attacker.close()
    check(all(code in (1008, 0) for code in codes), f"pings-unread: the sockets were not closed for their pings: {codes}")
    return {"sockets": count, "pings_sent": sum(sent), "close_codes": sorted(set(codes))}


held_sockets = []


def sockets_flood(stop):
    plain = []
    try:
        return flood_sockets_and_connections(stop, plain)
    finally:
        for held in held_sockets + plain:
            held.close()
        held_sockets.clear()


def flood_sockets_and_connections(stop, plain):
    addresses = 100 if FULL else 10
    per_address = 100 if FULL else 30
    statuses = {}
    for a in range(addresses):
        for _ in range(per_address):
            try:
                held_sockets.append(Socket(f"198.19.{a}.1"))
                statuses[101] = statuses.get(101, 0) + 1
            except Refused as refused:
                statuses[refused.status] = statuses.get(refused.status, 0) + 1
                if refused.status == 503:
                    break
            except OSError:
                statuses[0] = statuses.get(0, 0) + 1
                break
        if statuses.get(503):
            break
    stop.ready.set()
    # With every socket the server gives held: HTTP still answers.
    live = Client("203.0.113.50").request("GET", "/health/live")[0]
    signup = Client("203.0.113.51").request("POST", "/auth/v1/signup", {})[0]
    rest = Client("203.0.113.52").request("POST", "/rest/v1/rpc/wave_checkin_counts", {"wave_ids": ["w1"]})[0]
    # Then plain connections, silent, until the server refuses them at once (503: past the cap and the liveness
    # reserve); the reserve's silent ones are dropped within seconds, and the liveness path answers again.
    full = False
    while not full and len(plain) < 12_000:
        batch = []
        for _ in range(50):
            try:
                batch.append(socket.create_connection((target.hostname, target.port), timeout=5))
            except OSError:
                full = True
                break
        time.sleep(0.05)
        # poll, not select: past 1,024 descriptors select cannot name them.
        answered = select.poll()
        for connection in batch:
            answered.register(connection, select.POLLIN)
        full = full or bool(answered.poll(0))
        plain += batch
    time.sleep(3)
    health = Client("203.0.113.53").request("GET", "/health/live")[0]
    held_plain = len(plain)
    for connection in plain:
        connection.close()
    plain.clear()
    stop.wait()
    check(statuses.get(503, 0) >= 1 and statuses.get(101, 0) > 0, f"sockets-flood: the socket cap was never reached: {statuses}")
    check(live == 200 and signup == 200 and rest == 200, f"sockets-flood: with the sockets held, /health/live {live}, sign-up {signup}, REST {rest}")
    check(health == 200, f"sockets-flood: with every connection taken, /health/live answered {health}")
    return {"upgrades": statuses, "health_live": live, "signup": signup, "rest": rest, "plain_connections_held": held_plain,
            "health_live_when_full": health}


def bindings_flood(stop):
    count = 2000 if FULL else 20
    sockets, replies = [], {"ok": 0, "refused": 0}
    for i in range(count):
        try:
            sockets.append(Socket(f"198.20.{i // 10}.{i % 10 + 1}"))
        except Refused:
            break
    for n, attacker in enumerate(sockets):
        for channel in range(10):
            bindings = [{"event": "*", "schema": "public", "table": "wave_checkins", "filter": f"wave_id=eq.nothing-{n}-{channel}-{b}"} for b in range(16)]
            attacker.join(f"realtime:flood-{channel}", str(channel + 1), bindings)
    for attacker in sockets:
        for reply in attacker.replies(10):
            replies["ok" if reply["status"] == "ok" else "refused"] += 1
    stop.ready.set()
    stop.wait()
    for attacker in sockets:
        attacker.close()
    check(replies["ok"] <= 2 * len(sockets) and replies["refused"] >= 8 * len(sockets),
          f"bindings-flood: {replies} joins for {len(sockets)} sockets (at most 32 bindings, two channels, a socket)")
    return {"sockets": len(sockets), "bindings_asked": len(sockets) * 160, "bindings_held": replies["ok"] * 16, "joins": replies}


def long_join_ref(stop):
    count = 200 if FULL else 5
    codes = []
    for i in range(count):
        attacker = Socket(f"198.21.{i // 10}.{i % 10 + 1}")
        for channel in range(10):
            # Every other socket sends its 30,000 bytes in the topic instead (echoed in a reply just as well).
            ref, topic = ("r" * 30_000, f"realtime:long-{channel}") if i % 2 == 0 else (str(channel + 1), "realtime:" + "t" * 30_000)
            try:
                attacker.join(topic, ref, [{"event": "*", "schema": "public", "table": "wave_checkins"}])
            except OSError:
                break
        codes.append(attacker.close_code(5))
        attacker.close()
    stop.wait()
    check(all(code == 1008 for code in codes), f"long-join-ref: close codes {sorted(set(codes))}")
    return {"sockets": count, "close_codes": sorted(set(c for c in codes if c is not None))}


def row_flood(stop):
    client, uid, _ = rider("198.22.0.1")
    statuses, rows, deliveries0 = {}, 0, metric("pier_realtime_deliveries_total")
    started, batch = time.monotonic(), 0
    while not stop.is_set():
        batch += 1
        body = [{"wave_id": f"flood-{batch}-{i}", "user_id": uid, "departure_at": utc(3600), "station_id": "S", "lake_id": "L"} for i in range(100)]
        status = client.request("POST", "/rest/v1/wave_checkins?on_conflict=wave_id,user_id", body, {"Prefer": "resolution=merge-duplicates"})[0]
        statuses[f"post_{status}"] = statuses.get(f"post_{status}", 0) + 1
        rows += 100 if status == 201 else 0
        status = client.request("DELETE", f"/rest/v1/wave_checkins?user_id=eq.{uid}")[0]
        statuses[f"delete_{status}"] = statuses.get(f"delete_{status}", 0) + 1
    seconds = time.monotonic() - started
    deliveries = metric("pier_realtime_deliveries_total") - deliveries0
    # A rider's share: 40 rows at once, 2 a second (the shipped writes share); the first request of 100 passes on one.
    allowed = 100 + 40 + 2 * seconds
    check(rows <= allowed, f"row-flood: {rows} rows written in {seconds:.0f} s (a rider's share allows {allowed:.0f})")
    return {"seconds": round(seconds, 1), "requests": statuses, "rows_written": rows, "deliveries": int(deliveries)}


def unfinished_message(stop):
    count = 200 if FULL else 5
    sockets = [Socket(f"198.23.{i // 10}.{i % 10 + 1}") for i in range(count)]
    for attacker in sockets:
        attacker.send(1, b"[" + b" " * (60 * 1024), fin=False)
    started, codes = time.monotonic(), {}
    deadline = started + args.message_timeout + 10
    while sockets and time.monotonic() < deadline:
        for attacker in list(sockets):
            try:
                attacker.send(0, b"", fin=False)
            except OSError:
                pass
            code = attacker.close_code(0.01)
            if code is not None:
                codes[code] = codes.get(code, 0) + 1
                sockets.remove(attacker)
                attacker.close()
        time.sleep(1)
    held = len(sockets)
    for attacker in sockets:
        attacker.close()
    stop.wait()
    check(held == 0 and set(codes) == {1008}, f"unfinished-message: {held} still held after {args.message_timeout + 10:.0f} s, close codes {codes}")
    return {"sockets": count, "close_codes": codes, "closed_within_s": round(time.monotonic() - started, 1) if not held else None}


def long_filters(stop):
    count = 200 if FULL else 5
    refused, other = 0, 0
    for i in range(count):
        attacker = Socket(f"198.24.{i // 10}.{i % 10 + 1}")
        for channel in range(10):
            attacker.join(f"realtime:filter-{channel}", str(channel + 1),
                          [{"event": "*", "schema": "public", "table": "wave_checkins", "filter": "wave_id=eq." + "f" * 63_000}])
        for reply in attacker.replies(10):
            if reply["status"] == "error" and reply["response"]["reason"].startswith("InvalidFilter"):
                refused += 1
            else:
                other += 1
        attacker.close()
    stop.wait()
    check(refused == 10 * count and other == 0, f"long-filters: {refused} refused, {other} other replies of {10 * count}")
    return {"sockets": count, "joins_refused": refused}


healthy = Healthy()
seconds = 15 if FULL else 3
play("undisturbed", None, seconds)
for name, attack in [("pings-unread", pings_unread), ("sockets-flood", sockets_flood), ("bindings-flood", bindings_flood),
                     ("long-join-ref", long_join_ref), ("row-flood", row_flood), ("unfinished-message", unfinished_message),
                     ("long-filters", long_filters)]:
    if args.only and name not in args.only.split(","):
        continue
    play(name, attack, max(seconds, args.message_timeout + 4) if name == "unfinished-message" else seconds,
         holds=name in ("sockets-flood", "bindings-flood"))
healthy.running = False
healthy.socket.close()
if args.check:
    run.finish()
