"""Alplakes' 1D routes for any lake of the app's mapping and any time (scripts/fixtures/gen_alplakes.py)."""
import json, threading

import gen_alplakes

LOCK = threading.Lock()
CALLS = [0]


def handle(path, query):
    parts = path.strip("/").split("/")
    if not (len(parts) >= 6 and parts[:2] == ["simulations", "1d"] and parts[3] == "simstrat"):
        return None
    with LOCK:
        CALLS[0] += 1
    lake = parts[4]
    if lake not in gen_alplakes.LAKES:
        return 400, json.dumps({"detail": f"simstrat simulation results are not available for {lake}"}).encode()
    if parts[2] == "profile":
        return 200, json.dumps(gen_alplakes.profile(lake, gen_alplakes.parse_path_time(parts[5]))).encode()
    if parts[2] == "point" and len(parts) == 8:
        start, end = gen_alplakes.parse_path_time(parts[5]), gen_alplakes.parse_path_time(parts[6])
        return 200, json.dumps(gen_alplakes.point(lake, start, end)).encode()
    return 404, b'{"detail":"Not Found"}'


def stats():
    with LOCK:
        return {"alplakes": CALLS[0]}
