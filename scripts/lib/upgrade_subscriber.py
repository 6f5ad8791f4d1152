#!/usr/bin/env python3
"""The upgrade drill's phones (scripts/upgrade-drill), through the deployment's Caddy until the file OUT/stop appears:
PHONES Realtime subscribers (Caddy's least_conn spreads them over the replicas), each joined as the iPhone app joins (protocol 2.0.0, every event of wave_checkins) that behaves as
supabase-swift 2.47 does when its socket is closed — it reconnects once, 7 s later, joins its channel again, and never
reconnects after that — and cached reads of /api/ships beside it. A check-in is made once the subscriber has joined
and one more after OUT/stop; the summary says whether every subscriber heard each, how each one's sockets ended, and
how the reads went, as one JSON line on stdout.

Usage: upgrade_subscriber.py CADDY_URL ANON_KEY OUT [PHONES (4)]
Needs the `websockets` package (the tests' Python environment has it)."""
import json, os, sys, threading, time, urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attack_client
from attack_client import utc
from websockets.sync.client import connect

# supabase-swift 2.47's one reconnect: 7 s after the socket closed.
RECONNECT_AFTER_S = 7

url, anon, out = sys.argv[1], sys.argv[2], sys.argv[3]
phones = int(sys.argv[4]) if len(sys.argv) > 4 else 4
target = urllib.parse.urlparse(url)
lock = threading.Lock()
stopping = threading.Event()
reads = {"ok": 0, "failed": 0, "statuses": {}}


class Subscriber:
    """One phone's channel: its sockets in turn (the first, then at most one reconnect), each event heard."""

    def __init__(self):
        self.heard = set()
        self.closes = []
        self.reconnects = 0
        self.given_up = None
        self.joined = threading.Event()
        self.socket = self.open()
        threading.Thread(target=self.run, daemon=True).start()
        threading.Thread(target=self.beat, daemon=True).start()

    def open(self):
        socket = connect(f"ws://{target.hostname}:{target.port}/realtime/v1/websocket?apikey={anon}&vsn=2.0.0", open_timeout=10)
        payload = attack_client.join_payload([{"event": "*", "schema": "public", "table": "wave_checkins"}], anon)
        socket.send(json.dumps(["1", str(1 + self.reconnects), "realtime:upgrade", "phx_join", payload]))
        return socket

    def run(self):
        while True:
            try:
                for text in self.socket:
                    message = json.loads(text)
                    if message[3] == "phx_reply" and message[4].get("status") == "ok":
                        self.joined.set()
                    elif message[3] == "postgres_changes":
                        with lock:
                            self.heard.add((message[4]["data"].get("record") or {}).get("wave_id"))
                code = getattr(self.socket, "close_code", None)
            except Exception as error:
                code = repr(error)[:120]
            self.closes.append(code)
            if self.reconnects or stopping.is_set():
                return
            # The SDK's one reconnect.
            time.sleep(RECONNECT_AFTER_S)
            self.reconnects = 1
            try:
                self.socket = self.open()
            except Exception as error:
                self.given_up = repr(error)[:200]
                return

    def beat(self):
        beat = 0
        while not stopping.is_set():
            time.sleep(5)
            beat += 1
            try:
                self.socket.send(json.dumps([None, f"hb{beat}", "phoenix", "heartbeat", {}]))
            except Exception:
                pass


def reader():
    attack_client.keep_reading(attack_client.Client(target, anon, "10.254.0.1"), "/api/ships", stopping, lock, reads)


def check_in(client, uid, name):
    """A check-in made now; whether every subscriber heard it within 10 s."""
    wave = f"upgrade_{name}_{int(time.time() * 1000)}"
    row = {"wave_id": wave, "user_id": uid, "departure_at": utc(3600), "station_id": "S", "lake_id": "L"}
    status, _ = client.request("POST", "/rest/v1/wave_checkins", row)
    deadline = time.time() + 10
    while time.time() < deadline:
        with lock:
            deaf = sum(1 for subscriber in subscribers if wave not in subscriber.heard)
        if not deaf:
            return True
        time.sleep(0.05)
    return f"not heard by {deaf} of {len(subscribers)} (the check-in answered {status})"


subscribers = []
for _ in range(phones):
    subscribers.append(Subscriber())
    if not subscribers[-1].joined.wait(10):
        sys.exit("a subscriber's join was not answered")
writer = attack_client.Client(target, anon, "10.252.0.1")
uid, _ = writer.sign_up()
heard_before = check_in(writer, uid, "before")
threading.Thread(target=reader, daemon=True).start()
open(os.path.join(out, "joined"), "w").close()
while not os.path.exists(os.path.join(out, "stop")):
    time.sleep(0.1)
heard_after = check_in(attack_client.Client(target, anon, "10.252.0.2", bearer=writer.bearer), uid, "after")
stopping.set()
print(json.dumps({
    "heard_before": heard_before, "heard_after": heard_after, "closes": [subscriber.closes for subscriber in subscribers],
    "reconnects": sum(subscriber.reconnects for subscriber in subscribers),
    "given_up": [subscriber.given_up for subscriber in subscribers if subscriber.given_up], "reads": reads,
}))
