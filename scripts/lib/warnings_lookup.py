#!/usr/bin/env python3
"""The warnings lookup as a client sees it, for scripts/bench: N random points in Finland (seeded), each asked once
from /v1/warnings over one keep-alive connection — a first pass, then the same points again newest first (both from
the set in force held in memory once it is loaded; PostGIS only before) — with the latency of every answer and the
server's own count of where each list came from. Prints p50/p99 per pass and how many points had a warning.
Usage: warnings_lookup.py PORT [POINTS]"""
import http.client, json, random, sys, time

port = int(sys.argv[1])
count = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
rng = random.Random(1)
points = [(round(rng.uniform(59.8, 70.0), 4), round(rng.uniform(20.6, 31.5), 4)) for _ in range(count)]
connection = http.client.HTTPConnection("127.0.0.1", port)


def lookups():
    """The server's own count of lookups answered from memory and from PostGIS (pier_warnings_lookups_total)."""
    connection.request("GET", "/metrics")
    text = connection.getresponse().read().decode()
    counts = {"memory": 0, "database": 0}
    for line in text.splitlines():
        for source in counts:
            if line.startswith(f'pier_warnings_lookups_total{{from="{source}"}} '):
                counts[source] = int(float(line.split()[-1]))
    return counts


def run(label, order):
    before = lookups()
    times, warned, listed, bad = [], 0, 0, 0
    for lat, lon in order:
        start = time.perf_counter()
        connection.request("GET", f"/v1/warnings?lat={lat}&lon={lon}")
        response = connection.getresponse()
        body = response.read()
        times.append((time.perf_counter() - start) * 1000)
        if response.status != 200:
            bad += 1
            continue
        found = len(json.loads(body)["warnings"])
        warned += found > 0
        listed += found
    times.sort()
    after = lookups()
    print(f"warnings lookup, {label}: p50 {times[len(times) // 2]:.2f} ms, p99 {times[int(len(times) * 0.99)]:.2f} ms, "
          f"max {times[-1]:.2f} ms over {count} random points ({warned} warned, {listed} warnings listed; "
          f"{after['database'] - before['database']} from PostGIS, {after['memory'] - before['memory']} from memory), {bad} not 200")


run("first ask", points)
# Newest first: the points memory still holds (PIER_WARNINGS_CACHE_MB) come before those it let go.
run("asked again, newest first", list(reversed(points)))
