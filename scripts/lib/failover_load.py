#!/usr/bin/env python3
"""The failover drill's traffic (scripts/failover-drill), against a running pier with the community on, until the file
OUT/stop appears: four riders at a time signing up and checking in, with a short pause between one rider's pair of
writes and the next (each sign-up from an address of its own, as many phones would: no share runs out), cached reads of /api/ships, and a Realtime subscriber joined as the
iPhone app joins (protocol 2.0.0, every event of wave_checkins). Acknowledged writes are appended to OUT/users and
OUT/checkins as they are acknowledged. When OUT/killed holds the instant the database's leader was killed or a switchover
began (epoch seconds, written by the drill), the run measures how long writes stayed away. At the end one more check-in is made
and the subscriber must hear it; the summary is printed as one JSON line.

Usage: failover_load.py PIER_URL ANON_KEY OUT [--writers N (4)] [--readers N (1)] [--pause S (0.01, after each rider's pair)]
Needs the `websockets` package (the tests' Python environment has it)."""
import argparse, json, os, sys, threading, time, urllib.parse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attack_client
from attack_client import utc
from websockets.sync.client import connect

parser = argparse.ArgumentParser()
parser.add_argument("url")
parser.add_argument("anon")
parser.add_argument("out")
# Enough writers to keep writes continuous through the failover, paced so that the drill does not take the CPU from
# what runs beside it in scripts/test (hundreds of writes a second are not what is proven; none lost is).
parser.add_argument("--writers", type=int, default=4)
parser.add_argument("--readers", type=int, default=1)
parser.add_argument("--pause", type=float, default=0.01)
args = parser.parse_args()
target = urllib.parse.urlparse(args.url)
lock = threading.Lock()
stopping = threading.Event()
# Every write's outcome with its instant: (seconds, acknowledged, status, duration).
outcomes = []
reads = {"ok": 0, "failed": 0, "statuses": {}}
serial = [0]


def next_address():
    with lock:
        serial[0] += 1
        n = serial[0]
    # A /24 each (a network's day of sign-ups is counted per /24).
    return f"10.{(n >> 8) & 255}.{n & 255}.1"


def record(acknowledged, status, started, client):
    # A refusal while there is no leader must say when to try again.
    if status == 503 and not client.retry_after:
        status = "503 without Retry-After"
    with lock:
        outcomes.append((time.time(), acknowledged, status, time.time() - started))


def writer(number):
    client = attack_client.Client(target, args.anon, f"10.255.{number}.1")
    with open(os.path.join(args.out, "users"), "a") as users, open(os.path.join(args.out, "checkins"), "a") as checkins:
        while not stopping.is_set():
            client.bearer = None
            started = time.time()
            status, text = client.request("POST", "/auth/v1/signup", {}, address=next_address())
            record(status == 200, status, started, client)
            if status != 200:
                time.sleep(0.05)
                continue
            session = json.loads(text)
            uid = session["user"]["id"]
            users.write(uid + "\n")
            users.flush()
            client.bearer = session["access_token"]
            wave = f"drill_{uid[:8]}"
            row = {"wave_id": wave, "user_id": uid, "departure_at": utc(3600), "station_id": "S", "lake_id": "L"}
            started = time.time()
            status, _ = client.request("POST", "/rest/v1/wave_checkins", row, address=next_address())
            acknowledged = 200 <= status < 300
            record(acknowledged, status, started, client)
            if acknowledged:
                checkins.write(f"{uid} {wave}\n")
                checkins.flush()
            time.sleep(args.pause)


def reader(number):
    attack_client.keep_reading(attack_client.Client(target, args.anon, f"10.254.{number}.1"), "/api/ships", stopping, lock, reads)


class Subscriber:
    """The app's channel on one socket, kept with heartbeats; each wave heard, with its instant."""

    def __init__(self):
        self.heard = {}
        self.closed = None
        url = f"ws://{target.hostname}:{target.port}/realtime/v1/websocket?apikey={args.anon}&vsn=2.0.0"
        self.socket = connect(url, additional_headers={"X-Forwarded-For": "10.253.0.1"}, open_timeout=10)
        payload = attack_client.join_payload([{"event": "*", "schema": "public", "table": "wave_checkins"}], args.anon)
        self.socket.send(json.dumps(["1", "1", "realtime:drill", "phx_join", payload]))
        threading.Thread(target=self.read, daemon=True).start()
        threading.Thread(target=self.beat, daemon=True).start()

    def read(self):
        try:
            for text in self.socket:
                message = json.loads(text)
                if message[3] == "postgres_changes":
                    record_ = message[4]["data"].get("record") or {}
                    with lock:
                        self.heard.setdefault(record_.get("wave_id"), time.time())
        except Exception as error:  # the socket ended: say how
            self.closed = repr(error)[:200]
        else:
            self.closed = "closed"

    def beat(self):
        beat = 0
        while self.closed is None:
            time.sleep(5)
            beat += 1
            try:
                self.socket.send(json.dumps([None, f"hb{beat}", "phoenix", "heartbeat", {}]))
            except Exception:
                return


subscriber = Subscriber()
threads = [threading.Thread(target=writer, args=(n,), daemon=True) for n in range(args.writers)]
threads += [threading.Thread(target=reader, args=(n,), daemon=True) for n in range(args.readers)]
for thread in threads:
    thread.start()
while not os.path.exists(os.path.join(args.out, "stop")):
    time.sleep(0.1)
stopping.set()
for thread in threads:
    thread.join(70)

# A check-in made now (after the failover) must reach the subscriber that was joined before it.
client = attack_client.Client(target, args.anon, "10.252.0.1")
uid, _ = client.sign_up()
wave = f"drill_after_{int(time.time())}"
status, _ = client.request("POST", "/rest/v1/wave_checkins", {"wave_id": wave, "user_id": uid, "departure_at": utc(3600), "station_id": "S", "lake_id": "L"})
deadline = time.time() + 10
while wave not in subscriber.heard and time.time() < deadline:
    time.sleep(0.05)

killed = None
try:
    with open(os.path.join(args.out, "killed")) as file:
        killed = float(file.read().strip())
except (OSError, ValueError):
    pass
refusals = {}
for _, acknowledged, status, _ in outcomes:
    if not acknowledged:
        refusals[str(status)] = refusals.get(str(status), 0) + 1
summary = {
    "acknowledged": sum(1 for outcome in outcomes if outcome[1]),
    "refused": refusals,
    "slowest_s": round(max((outcome[3] for outcome in outcomes), default=0), 2),
    "reads": reads,
    "heard_after": wave in subscriber.heard,
    "after_status": status,
    "socket": subscriber.closed or "open",
}
if killed is not None:
    # How long writes stayed away: the longest time without an acknowledged write from the action on (writers are
    # always waiting on one), the last one before it counted as the start.
    acks = sorted(t for t, acknowledged, _, _ in outcomes if acknowledged)
    before = [t for t in acks if t <= killed]
    after = [t for t in acks if t > killed]
    times = before[-1:] + after
    summary["writes_back_after_s"] = round(max(b - a for a, b in zip(times, times[1:])), 1) if after and times[:-1] else None
    summary["acknowledged_after"] = len(after)
    summary["acknowledged_before"] = len(before)
print(json.dumps(summary))
