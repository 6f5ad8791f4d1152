"""TfNSW's departure_mon: about 40 departures, as TfNSW sends, written for now (any stop id of up to 7 digits, or
G and digits, is a made-up stop); TfNSW's unknown-stop answer for any other id (the attacks' random ids)."""
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
    digits = stop[1:] if stop.startswith("G") else stop
    if not (digits.isdigit() and len(digits) <= 7):
        return 200, json.dumps(gen_nsw.unknown_stop(stop), separators=(",", ":")).encode()
    answer, _ = gen_nsw.departure_mon(stop, dt.datetime.now(dt.timezone.utc), count=40)
    return 200, json.dumps(answer, separators=(",", ":")).encode()


def stats():
    with LOCK:
        return {"tfnsw": CALLS[0], "stops": len(STOPS), "per_stop_max": max(STOPS.values(), default=0)}
