#!/usr/bin/env python3
"""A local stand-in for FMI's WFS for scripts/bench: all-Finland observations (N stations, ending now) and
point forecasts for any latlon, written by scripts/fixtures/gen_fmi.py's functions on each request.
Usage: fmi_fixture_server.py GEN_FMI_PATH PORT [STATIONS]"""
import datetime as dt, importlib.util, random, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

spec = importlib.util.spec_from_file_location("gen_fmi", sys.argv[1])
gen = importlib.util.module_from_spec(spec)
spec.loader.exec_module(gen)
PORT = int(sys.argv[2])
COUNT = int(sys.argv[3]) if len(sys.argv) > 3 else 200
rng = random.Random(7)
STATIONS = [(100000 + i, f"Station {i}", round(rng.uniform(59.8, 70.0), 5), round(rng.uniform(20.0, 31.5), 5)) for i in range(COUNT)]
lock = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):
        query = parse_qs(urlparse(self.path).query)
        now = dt.datetime.now(dt.timezone.utc).replace(tzinfo=None)
        with lock:
            if "observations" in query.get("storedquery_id", [""])[0]:
                end = now.replace(minute=now.minute - now.minute % 10, second=0, microsecond=0)
                doc, _ = gen.observations(random.Random(1), end, STATIONS, 0.05)
            else:
                lat, lon = (float(v) for v in query.get("latlon", ["60.17,24.94"])[0].split(","))
                doc, _ = gen.forecast(random.Random(2), now.replace(minute=0, second=0, microsecond=0), lat, lon, 240)
        body = doc.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/xml; charset=UTF-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


ThreadingHTTPServer(("127.0.0.1", PORT), Handler).serve_forever()
