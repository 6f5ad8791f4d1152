"""TfNSW's departure_mon: about 40 departures, as TfNSW sends, written for now (any stop id is a made-up stop)."""
import datetime as dt, json, threading

import gen_nsw

LOCK = threading.Lock()
CALLS = [0]
STOPS = {}


def handle(path, query):
    if not path.endswith("/departure_mon"):
        return None
    stop = query.get("name_dm", [""])[0]
    with LOCK:
        CALLS[0] += 1
        STOPS[stop] = STOPS.get(stop, 0) + 1
    answer, _ = gen_nsw.departure_mon(stop, dt.datetime.now(dt.timezone.utc), count=40)
    return 200, json.dumps(answer, separators=(",", ":")).encode()


def stats():
    with LOCK:
        return {"tfnsw": CALLS[0], "stops": len(STOPS), "per_stop_max": max(STOPS.values(), default=0)}
