#!/usr/bin/env python3
"""Next Wave's community tried as an attacker would (issue 53), against a running pier with the community on: each attack
prints one JSON line with what it sent and what happened, and with --check the run fails when a bound did not hold.
Pier trusts loopback as its proxy, so X-Forwarded-For's right-most entry is the address the attacker appears from.

  counts-padding     wave_checkin_counts with the public key only, padded bodies of distinct lengths (answers kept by
                     the bytes would grow pier's memory), beside a control flood naming new waves; a 1 MB body
  departed-checkins  one rider's check-ins stamped "departed 5 minutes ago" (the cap counts them), then the archive
                     (--pier) and the leaderboard another rider sees (rides counted per day)
  strange-checkins   (--pier) 100 check-ins in one request with the longest, strangest ids the routes accept (control
                     characters, JSON's six bytes each; quotes; emoji), moved to the past in one upsert, one checked
                     out, the archive run, and another rider's 100 gone with their account: every statement's notice
                     must fit PostgreSQL's 8,000 bytes, so each answers as for any row
  verified-flood     one rider's verified sessions on one day
  reads-flood        one user's leaderboard calls (from memory) and table reads (queries, a share) on 16 connections
                     while another rider checks in
  signups            anonymous sign-ups from rotating networks
  token-across-apps  (--push) a rider's APNs token registered by the warnings app's /v1/devices; a second device's PUT
                     with the first one's token

Usage: community_attacks.py PIER_URL ANON_KEY PIER_PID [--scale small|full] [--pier BIN] [--push] [--check]
(DATABASE_URL in the environment for --pier: `pier nextwave archive`). Standard library only (the benchmark's python3)."""
import argparse, json, os, subprocess, sys, threading, time, urllib.parse, uuid

import attack_client
from attack_client import Run, utc

parser = argparse.ArgumentParser()
parser.add_argument("url")
parser.add_argument("anon")
parser.add_argument("pid", type=int)
parser.add_argument("--scale", choices=["small", "full"], default="small")
parser.add_argument("--pier")
parser.add_argument("--push", action="store_true")
parser.add_argument("--check", action="store_true")
args = parser.parse_args()
target = urllib.parse.urlparse(args.url)
FULL = args.scale == "full"
run = Run()
check, report = run.check, run.report


def Client(address, bearer=None):
    return attack_client.Client(target, args.anon, address, bearer)


def rss_mb():
    return attack_client.rss_mb(args.pid)


riders = iter(range(1, 250))


def rider():
    """A new anonymous rider (its access token and id), signed up from an address of its own (a network of its own: a
    network's sign-ups share one budget)."""
    client = Client(f"192.0.{next(riders)}.10")
    uid, _ = client.sign_up()
    return client, uid


def parallel(threads, work):
    workers = [threading.Thread(target=work, args=(n,)) for n in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()


def counts_padding():
    count = 1500 if FULL else 400
    room = 100_000  # within the function's bound: a stranger pads up to it
    statuses = {}
    lock = threading.Lock()

    def flood(naming_new_waves):
        def work(n):
            client = Client("198.51.100.200")
            for i in range(n, count, 8):
                wave = f"control-{i}" if naming_new_waves else "w1"
                head = json.dumps({"wave_ids": [wave]})[:-1]
                # The control flood from rotating networks (each new wave is a read, and a network's reads share one
                # budget); the padded one from one address (one answer: memory holds it after the first).
                address = f"100.{64 + i // 250}.{i % 250}.1" if naming_new_waves else None
                status, _ = client.request("POST", "/rest/v1/rpc/wave_checkin_counts", (head + " " * (room - i) + "}").encode(), address=address)
                with lock:
                    statuses[status] = statuses.get(status, 0) + 1
        before = rss_mb()
        parallel(8, work)
        return rss_mb() - before
    control = flood(True)
    padded = flood(False)
    huge, _ = Client("198.51.100.201").request("POST", "/rest/v1/rpc/wave_checkin_counts", b'{"wave_ids":["w1"]' + b" " * 1_000_000 + b"}")
    report("counts-padding", requests=2 * count, body_bytes=room, rss_growth_padded_mb=round(padded, 1), rss_growth_control_mb=round(control, 1),
           statuses=statuses, one_mb_body=huge)
    check(padded <= control + 50, f"padded bodies grew pier by {padded:.0f} MB, the control flood by {control:.0f} MB")
    check(huge == 413, f"a 1 MB body: {huge}, not 413")


def departed_checkins():
    client, uid = rider()
    sent = 5000 if FULL else 150
    statuses = {}
    for i in range(sent):
        row = {"wave_id": f"past-{i}", "user_id": uid, "display_name": "Top", "departure_at": utc(-300), "station_id": "Thalwil (See)_8503674",
               "lake_id": "Zürichsee", "is_first_of_day": False, "is_last_of_day": False}
        status, _ = client.request("POST", "/rest/v1/wave_checkins?on_conflict=wave_id,user_id", row, {"Prefer": "resolution=merge-duplicates"})
        statuses[status] = statuses.get(status, 0) + 1
    facts = {"sent": sent, "statuses": statuses}
    check(statuses.get(201, 0) <= 100, f"{statuses.get(201, 0)} departed check-ins held (the cap is 100)")
    if args.pier:
        archived = subprocess.run([args.pier, "nextwave", "archive"], capture_output=True, text=True, env=os.environ)
        facts["archive"] = archived.stdout.strip()
        time.sleep(0.5)  # the change feed carries the archive to the running pier
        status, text = client.request("POST", "/rest/v1/rpc/wave_leaderboard", {"p_station_id": None, "p_limit": 5})
        board = json.loads(text) if status == 200 else []
        mine = next((row["total_waves"] for row in board if row["is_me"]), 0)
        facts.update(leaderboard_status=status, attacker_rides=mine)
        check(status == 200 and 0 < mine <= 30, f"the attacker's leaderboard row counts {mine} rides (at most 30 a day count): {status}")
    report("departed-checkins", **facts)


def strange_checkins():
    def rows(uid, tag, departs):
        # Distinct waves (a notice carries one change per wave), each id at its bound in characters.
        return [{"wave_id": f"{tag}{i:03d}" + "\u0001" * (200 - len(tag) - 3), "user_id": uid, "display_name": "\"" * 40,
                 "departure_at": departs, "station_id": "\u001f" * 199 + "\"", "lake_id": "\U0001F3C4" * 50 + "\u0007" * 50,
                 "is_first_of_day": False, "is_last_of_day": False} for i in range(100)]
    upsert = "/rest/v1/wave_checkins?on_conflict=wave_id,user_id"
    merge = {"Prefer": "resolution=merge-duplicates"}
    client, uid = rider()
    inserted, text = client.request("POST", upsert, rows(uid, "s", utc(3600)), merge)
    moved, _ = client.request("POST", upsert, rows(uid, "s", utc(-300)), merge)
    wave = urllib.parse.quote(rows(uid, "s", None)[0]["wave_id"], safe="")
    checked_out, _ = client.request("DELETE", f"/rest/v1/wave_checkins?wave_id=eq.{wave}&user_id=eq.{uid}")
    facts = {"inserted": inserted, "moved_to_the_past": moved, "checked_out": checked_out}
    check(inserted == 201 and moved == 201 and checked_out == 204, f"100 strange check-ins, moved, one checked out: {facts} {text[:200]!r}")
    if args.pier:
        archived = subprocess.run([args.pier, "nextwave", "archive"], capture_output=True, text=True, env=os.environ)
        facts["archive"] = archived.returncode
        check(archived.returncode == 0, f"the archive with 99 strange departed check-ins: {archived.stdout[-300:]} {archived.stderr[-300:]}")
    other, other_uid = rider()
    held, _ = other.request("POST", upsert, rows(other_uid, "o", utc(3600)), merge)
    deleted, _ = other.request("DELETE", "/auth/v1/user")
    facts.update(other_inserted=held, account_deleted=deleted)
    check(held == 201 and deleted == 204, f"another rider's 100 strange check-ins and their account's deletion: {held}, {deleted}")
    report("strange-checkins", **facts)


def verified_flood():
    client, uid = rider()
    sent = 2000 if FULL else 60
    statuses = {}
    start = utc(-86_400)
    for i in range(sent):
        row = {"user_id": uid, "session_key": f"s{i:06d}", "source": "foilmotion", "start_at": start, "end_at": start, "total_distance": 1000.0,
               "duration": 600, "moving_time": 500, "max_speed": 6.0, "longest_ride": 400.0, "station_id": None, "lake_id": None}
        status, _ = client.request("POST", "/rest/v1/verified_sessions?on_conflict=user_id,session_key", row, {"Prefer": "resolution=ignore-duplicates"})
        statuses[status] = statuses.get(status, 0) + 1
    report("verified-flood", sent=sent, statuses=statuses)
    check(statuses.get(201, 0) <= 10, f"{statuses.get(201, 0)} verified sessions stored on one day (at most 10)")


def reads_flood():
    flooder, _ = rider()
    other, uid = rider()
    seconds = 15 if FULL else 2
    statuses, latencies = {}, []
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def flood(n):
        # Half the connections the leaderboard (held in memory), half a table (every read a query).
        client = Client(flooder.address, flooder.bearer)
        what = "leaderboard" if n % 2 else "verified_sessions"
        while time.monotonic() < stop:
            if what == "leaderboard":
                status, _ = client.request("POST", "/rest/v1/rpc/wave_leaderboard", {"p_station_id": None, "p_limit": 50})
            else:
                status, _ = client.request("GET", "/rest/v1/verified_sessions?select=*")
            with lock:
                statuses.setdefault(what, {})
                statuses[what][status] = statuses[what].get(status, 0) + 1

    def checkins(_):
        i = 0
        while time.monotonic() < stop:
            row = {"wave_id": f"live-{i}", "user_id": uid, "departure_at": utc(3600 + i), "station_id": "S", "lake_id": "L"}
            started = time.monotonic()
            status, _ = other.request("POST", "/rest/v1/wave_checkins?on_conflict=wave_id,user_id", row, {"Prefer": "resolution=merge-duplicates"})
            latencies.append((time.monotonic() - started, status))
            other.request("DELETE", f"/rest/v1/wave_checkins?wave_id=eq.live-{i}&user_id=eq.{uid}")
            i += 1
            time.sleep(0.05)
    workers = [threading.Thread(target=flood, args=(n,)) for n in range(16)] + [threading.Thread(target=checkins, args=(0,))]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    times = sorted(seconds for seconds, _ in latencies)
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))] if times else 0
    report("reads-flood", seconds=seconds, flood_statuses=statuses, checkins=len(latencies),
           checkin_statuses=sorted({status for _, status in latencies}), checkin_p99_ms=round(p99 * 1000, 1))
    tables = statuses.get("verified_sessions", {})
    check(tables.get(429, 0) > tables.get(200, 0), f"the table reads were mostly served: {statuses}")
    # (Only the calls while the board is first computed reach PostgreSQL, and spend the share the table flood spends.)
    board = statuses.get("leaderboard", {})
    check(board.get(200, 0) > 10 * board.get(429, 0), f"the leaderboard from memory: {statuses}")
    check(latencies and all(status == 201 for _, status in latencies), f"another rider's check-ins: {sorted({s for _, s in latencies})}")


def signups():
    count = 1000 if FULL else 30
    statuses = {}
    for i in range(count):
        status, _ = Client(f"10.{i // 250}.{i % 250}.1").request("POST", "/auth/v1/signup", {})
        statuses[status] = statuses.get(status, 0) + 1
    status, text = Client("127.0.0.1").request("GET", "/health")
    users = json.loads(text).get("nextwave", {}).get("users")
    report("signups", sent=count, statuses=statuses, health_users=users)
    # Full size, everybody's sign-up budget refuses some (429): that is a bound too.
    check(statuses.get(200, 0) + statuses.get(429, 0) == count and isinstance(users, int) and users >= statuses.get(200, 0),
          f"sign-ups {statuses}, /health users {users}")


def token_across_apps():
    client, uid = rider()
    token = uuid.uuid4().hex * 2
    client.request("POST", "/rest/v1/device_tokens?on_conflict=user_id,token", {"user_id": uid, "token": token, "platform": "ios"},
                   {"Prefer": "resolution=merge-duplicates"})
    device = {"token": token, "environment": "production", "language": "fi", "places": [{"lat": 60.2, "lon": 24.96}]}
    phone = Client("203.0.113.21")
    registered, text = phone.request("POST", "/v1/devices", device)
    first = json.loads(text) if registered == 201 else {}
    status, text = client.request("GET", f"/rest/v1/device_tokens?select=token&user_id=eq.{uid}")
    kept = status == 200 and json.loads(text) == [{"token": token}]
    # Within the warnings app the latest registration wins: a second device's PUT with the first one's token.
    second_status, text = phone.request("POST", "/v1/devices", {**device, "token": uuid.uuid4().hex * 2})
    second = json.loads(text) if second_status == 201 else {}
    moved, _ = phone.request("PUT", f"/v1/devices/{second.get('id')}", device, {"Authorization": f"Bearer {second.get('secret')}"})
    gone, _ = phone.request("GET", f"/v1/devices/{first.get('id')}", None, {"Authorization": f"Bearer {first.get('secret')}"})
    report("token-across-apps", registered=registered, rider_keeps_token=kept, second_put=moved, first_device_after=gone)
    check(registered == 201 and kept, f"the warnings app's registration took the rider's token: {registered}, kept {kept}")
    check(moved == 200 and gone == 404, f"within one app the latest registration wins: PUT {moved}, the first device {gone}")


counts_padding()
departed_checkins()
strange_checkins()
verified_flood()
reads_flood()
signups()
if args.push:
    token_across_apps()
for failure in run.failures:
    print(f"FAILED: {failure}", file=sys.stderr)
sys.exit(1 if args.check and run.failures else 0)
