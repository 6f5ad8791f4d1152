#!/usr/bin/env python3
"""A local stand-in for OpenWeather's 5-day forecast, Alplakes' 1D routes, TfNSW's departure_mon and Geoapify's
places and geocoding, for scripts/bench: answers written on the fly by the fixture generators
(scripts/fixtures/gen_openweather.py, gen_alplakes.py, gen_nsw.py) for any point, lake, stop and time, so that cold
keys are really cold; Geoapify's places are the Nürnberg fixture for any point, and a geocoding search finds the
city of scripts/lib/places_population.py's CITIES it names (else nothing). GET /_stats answers {"openweather":
calls, "cells": distinct points asked, "per_cell_max": most calls for one point, "alplakes": calls, "tfnsw": calls,
"stops": distinct stops asked, "per_stop_max": most calls for one stop, "places": calls, "geocode": calls,
"credits": Geoapify credits those cost (one per 20 places asked, one per search)} (the upstream's own count, for
the population simulations).
Usage: upstream_fixture_server.py PORT"""
import datetime as dt, json, os, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures"))
import gen_alplakes  # noqa: E402
import gen_nsw  # noqa: E402
import gen_openweather  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from places_population import CITIES  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
with open(os.path.join(ROOT, "Tests", "Fixtures", "geoapify", "places-nuernberg.json"), "rb") as file:
    PLACES = file.read()

LOCK = threading.Lock()
STATS = {"openweather": 0, "alplakes": 0, "tfnsw": 0, "places": 0, "geocode": 0, "credits": 0}
CELLS = {}
STOPS = {}
FORECASTS = {}


def forecast(lat, lon):
    key = (round(lat, 4), round(lon, 4))
    with LOCK:
        cached = FORECASTS.get(key)
    if cached is None:
        cached = json.dumps(gen_openweather.forecast(lat, lon)).encode()
        with LOCK:
            FORECASTS[key] = cached
    return cached


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; with Nagle on, the last segment of a keep-alive answer waits for the
    # client's delayed ACK (~40 ms) — a stall of this stand-in, not of the upstream or of Pier.
    disable_nagle_algorithm = True

    def do_GET(self):
        url = urlparse(self.path)
        query = parse_qs(url.query)
        parts = url.path.strip("/").split("/")
        status, body = 404, b'{"detail":"Not Found"}'
        if url.path == "/_stats":
            with LOCK:
                body = json.dumps(dict(STATS, cells=len(CELLS), per_cell_max=max(CELLS.values(), default=0),
                                       stops=len(STOPS), per_stop_max=max(STOPS.values(), default=0))).encode()
                status = 200
        elif url.path == "/data/2.5/forecast":
            lat, lon = float(query.get("lat", ["0"])[0]), float(query.get("lon", ["0"])[0])
            with LOCK:
                STATS["openweather"] += 1
                CELLS[(lat, lon)] = CELLS.get((lat, lon), 0) + 1
            body, status = forecast(lat, lon), 200
        elif url.path.endswith("/departure_mon"):
            # About 40 departures, as TfNSW sends, written for now (any stop id is a made-up stop).
            stop = query.get("name_dm", [""])[0]
            with LOCK:
                STATS["tfnsw"] += 1
                STOPS[stop] = STOPS.get(stop, 0) + 1
            answer, _ = gen_nsw.departure_mon(stop, dt.datetime.now(dt.timezone.utc), count=40)
            body, status = json.dumps(answer, separators=(",", ":")).encode(), 200
        elif url.path == "/v2/places":
            limit = int(query.get("limit", ["20"])[0])
            with LOCK:
                STATS["places"] += 1
                STATS["credits"] += (limit + 19) // 20
            status, body = 200, PLACES
        elif url.path == "/v1/geocode/search":
            text = query.get("text", [""])[0].strip().lower()
            with LOCK:
                STATS["geocode"] += 1
                STATS["credits"] += 1
            features = [{"type": "Feature", "properties": {"name": name, "city": name, "lon": lon, "lat": lat},
                         "geometry": {"type": "Point", "coordinates": [lon, lat]}}
                        for name, lat, lon in CITIES if name.lower() == text]
            status, body = 200, json.dumps({"type": "FeatureCollection", "features": features}).encode()
        elif len(parts) >= 6 and parts[:2] == ["simulations", "1d"] and parts[3] == "simstrat":
            with LOCK:
                STATS["alplakes"] += 1
            lake = parts[4]
            if lake not in gen_alplakes.LAKES:
                status, body = 400, json.dumps({"detail": f"simstrat simulation results are not available for {lake}"}).encode()
            elif parts[2] == "profile":
                status, body = 200, json.dumps(gen_alplakes.profile(lake, gen_alplakes.parse_path_time(parts[5]))).encode()
            elif parts[2] == "point" and len(parts) == 8:
                start, end = gen_alplakes.parse_path_time(parts[5]), gen_alplakes.parse_path_time(parts[6])
                status, body = 200, json.dumps(gen_alplakes.point(lake, start, end)).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
