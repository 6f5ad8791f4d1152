#!/usr/bin/env python3
"""The attacks of docs/operations/keys-and-budgets.md ("Fair shares") played against a running pier with the shipped limits, the
upstreams served by scripts/lib/upstream_fixture_server.py. Pier trusts loopback as its proxy, so X-Forwarded-For's
right-most entry is the address a proxy in front would have appended: the attacker's own.

For each attack: what it sent, what pier answered, what it spent of the day (upstream calls and quota units), and
what a new user — another network, a key nobody asked for — got right after (status and time).
Usage: attacks.py PIER_URL STANDIN_URL SECONDS_PER_ATTACK"""
import collections, json, random, sys, threading, time, urllib.error, urllib.request

PIER, STANDIN, SECONDS = sys.argv[1], sys.argv[2], float(sys.argv[3])
THREADS = 8


def get(path, client):
    request = urllib.request.Request(PIER + path, headers={"X-Forwarded-For": client})
    started = time.monotonic()
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            response.read()
            status = response.status
    except urllib.error.HTTPError as error:
        error.read()
        status = error.code
    except OSError:
        status = 0
    return status, time.monotonic() - started


def used(source):
    with urllib.request.urlopen(PIER + "/health", timeout=10) as response:
        quota = json.load(response)["sources"][source].get("quota") or {}
    return quota.get("used_today") or 0


def standin():
    with urllib.request.urlopen(STANDIN + "/_stats", timeout=10) as response:
        return json.load(response)


def place(rng):
    return "/v1/places?lat=%.5f&lon=%.5f&radius=1000&categories=tourism.attraction&limit=100" % (
        40 + rng.random() * 10, 2 + rng.random() * 15)


def play(name, source, path_of, client_of, calls_key, new_user_path=None):
    statuses = collections.Counter()
    lock = threading.Lock()
    before_units, before_calls = used(source), standin().get(calls_key, 0)
    deadline = time.monotonic() + SECONDS

    def worker(seed):
        rng = random.Random(seed)
        while time.monotonic() < deadline:
            status, _ = get(path_of(rng), client_of(rng))
            with lock:
                statuses[status] += 1

    threads = [threading.Thread(target=worker, args=("%s/%d" % (name, seed),)) for seed in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    units, calls = used(source) - before_units, standin().get(calls_key, 0) - before_calls
    status, seconds = get((new_user_path or path_of)(random.Random(time.time_ns())), "192.0.2.%d" % random.randint(1, 254))
    sent = sum(statuses.values())
    print("attack %-34s %6d requests in %.0f s (%s): %d %s calls, %d quota units spent; then a new user got %d in %.0f ms" % (
        name, sent, SECONDS, " ".join("%s=%d" % item for item in sorted(statuses.items())), calls, calls_key, units, status,
        seconds * 1000), flush=True)


def random_v4(rng):
    return "%d.%d.%d.%d" % (rng.randint(1, 223), rng.randint(0, 255), rng.randint(0, 255), rng.randint(1, 254))


play("one address (places, limit=100)", "places", place, lambda rng: "198.51.100.7", "credits")
play("rotating left-most X-Forwarded-For", "places", place, lambda rng: random_v4(rng) + ", 198.51.100.9", "credits")
play("one IPv6 /48 (a new /64 each time)", "places", place,
     lambda rng: "2001:db8:77:%x:%x::1" % (rng.randint(0, 65535), rng.randint(0, 65535)), "credits")
# Random stop ids from the addresses of one /24: TfNSW does not know them, so none counts as watched.
before = None
with urllib.request.urlopen(PIER + "/health", timeout=10) as response:
    before = json.load(response)["sources"]["nsw"]["ttl_s"]
play("random stop ids from one /24", "nsw", lambda rng: "/v1/nsw/departures?stop=%012x" % rng.getrandbits(48),
     lambda rng: "203.0.113.%d" % rng.randint(1, 254), "tfnsw", lambda rng: "/v1/nsw/departures?stop=%d" % rng.randint(200000, 299999))
with urllib.request.urlopen(PIER + "/health", timeout=10) as response:
    after = json.load(response)["sources"]["nsw"]["ttl_s"]
print("attack random stop ids: nsw.ttl_s %s s before, %s s after (a known stop's freshness is not stretched)" % (before, after), flush=True)
