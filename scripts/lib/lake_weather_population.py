#!/usr/bin/env python3
"""Simulates Next Wave users asking /v1/lake-weather for stations along the Swiss lakes, and reports what it cost
upstream (the local OpenWeather's own count, GET /_stats of scripts/lib/upstream_fixture_server.py).

Points: POINTS stations spread along 16 lakes (each lake drawn as a polyline between shore towns, stations a
few hundred metres off it, deterministic for the seed) — generated here; the app's own station list stays the
app's. Users: 5,000, each behind its own address, with one to four favourite stations (a few stations are
everyone's) and opening the app at random moments; an opening asks for every favourite, as the app does at start.

    lake_weather_population.py PIER_URL UPSTREAM_URL SECONDS [REQUESTS_PER_SECOND] [POINTS]

Prints the requests made, their statuses, the upstream calls, distinct cells, calls per cell at most, and
calls per hour extrapolated.
"""
import http.client, json, math, random, sys, threading, time
from urllib.parse import urlparse

LAKES = {  # shore points (lat, lon) the stations are spread along
    "Zürichsee": [(47.366, 8.541), (47.30, 8.60), (47.23, 8.75), (47.21, 8.85)],
    "Genfersee": [(46.21, 6.15), (46.38, 6.24), (46.51, 6.63), (46.46, 6.84), (46.39, 6.93)],
    "Vierwaldstättersee": [(47.05, 8.31), (47.00, 8.43), (46.99, 8.60), (46.94, 8.60)],
    "Bodensee": [(47.66, 9.17), (47.60, 9.37), (47.50, 9.55), (47.50, 9.73)],
    "Thunersee": [(46.75, 7.63), (46.69, 7.75), (46.68, 7.85)],
    "Brienzersee": [(46.69, 7.87), (46.73, 8.00), (46.76, 8.04)],
    "Lago Maggiore": [(46.17, 8.80), (46.10, 8.75), (45.95, 8.65)],
    "Luganersee": [(46.00, 8.95), (45.96, 9.03), (45.92, 8.90)],
    "Bielersee": [(47.14, 7.24), (47.09, 7.16), (47.06, 7.10)],
    "Neuenburgersee": [(46.99, 6.93), (46.91, 6.84), (46.78, 6.64)],
    "Murtensee": [(46.93, 7.12), (46.89, 7.05)],
    "Zugersee": [(47.17, 8.51), (47.09, 8.48), (47.03, 8.48)],
    "Walensee": [(47.12, 9.07), (47.12, 9.22), (47.12, 9.30)],
    "Hallwilersee": [(47.31, 8.21), (47.26, 8.22)],
    "Ägerisee": [(47.13, 8.62), (47.10, 8.64)],
    "Greifensee": [(47.37, 8.67), (47.34, 8.71)],
}


def stations(count, rng):
    lakes = list(LAKES.values())
    weights = [sum(math.dist(a, b) for a, b in zip(line, line[1:])) for line in lakes]
    points = []
    for _ in range(count):
        line = rng.choices(lakes, weights)[0]
        i = rng.randrange(len(line) - 1)
        t = rng.random()
        (a, b), (c, d) = line[i], line[i + 1]
        points.append((round(a + (c - a) * t + rng.uniform(-0.004, 0.004), 5), round(b + (d - b) * t + rng.uniform(-0.004, 0.004), 5)))
    return points


def main():
    pier, upstream, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    rate = float(sys.argv[4]) if len(sys.argv) > 4 else 20
    count = int(sys.argv[5]) if len(sys.argv) > 5 else 300
    rng = random.Random(7)
    points = stations(count, rng)
    popularity = [1 / (1 + i) ** 0.8 for i in range(count)]  # a few stations are everyone's
    # Each user behind its own address (the proxy's X-Forwarded-For), as phones are: one client's share of the
    # budget is not everyone's.
    users = [(f"10.{n // 65536}.{n // 256 % 256}.{n % 256}", rng.choices(points, popularity, k=rng.randint(1, 4))) for n in range(5000)]
    statuses, lock, requests = {}, threading.Lock(), [0]
    deadline = time.monotonic() + seconds
    target = urlparse(pier)

    def worker(seed):
        local = random.Random(seed)
        connection = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
        while time.monotonic() < deadline:
            address, favourites = local.choice(users)
            for lat, lon in favourites:
                try:
                    connection.request("GET", f"/v1/lake-weather?lat={lat}&lon={lon}&units=metric", headers={"X-Forwarded-For": address})
                    response = connection.getresponse()
                    response.read()
                    status = response.status
                except Exception:
                    connection = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
                    status = "error"
                with lock:
                    statuses[status] = statuses.get(status, 0) + 1
                    requests[0] += 1
            time.sleep(local.expovariate(rate / 8))

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    stats_url = urlparse(upstream)
    connection = http.client.HTTPConnection(stats_url.hostname, stats_url.port)
    connection.request("GET", "/_stats")
    stats = json.loads(connection.getresponse().read())
    per_cell = stats.get("per_cell_max", None)
    print(json.dumps({"seconds": seconds, "stations": count, "requests": requests[0], "statuses": {str(k): v for k, v in statuses.items()},
                      "upstream_calls": stats["openweather"], "cells": stats["cells"], "calls_per_cell_max": per_cell,
                      "upstream_calls_per_hour": round(stats["openweather"] * 3600 / seconds)}))


if __name__ == "__main__":
    main()
