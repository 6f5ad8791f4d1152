#!/usr/bin/env python3
"""Simulates Trip Planner widgets asking /v1/nsw/departures, and reports what it cost upstream (the local TfNSW's
own count, GET /_stats of scripts/lib/upstream_fixture_server.py) and how fresh the answers were.

Widgets: WIDGETS (10,000), each showing one of STOPS (300) stops — a few stops are many widgets' (popularity
1/(1+i)^0.8), every stop someone's — and refreshing every INTERVAL seconds (120) from a random phase, each
behind its own address (as phones are). Every answer is checked: 200 with `Age`, and no departure in it that has
already left.

    nsw_population.py PIER_URL UPSTREAM_URL SECONDS [WIDGETS] [STOPS] [INTERVAL]

Prints one JSON line: requests, statuses, stale answers, departed departures seen (must be 0), the answers' age
(p50, p90, max seconds since TfNSW was asked), upstream calls, distinct stops, calls per stop at most, and calls
per hour and per day at the rate of the run's second half (past the cold start, when every stop is first asked).
"""
import datetime as dt, heapq, http.client, json, random, sys, threading, time
from urllib.parse import urlparse


def parse(text):
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def main():
    pier, upstream, seconds = sys.argv[1], sys.argv[2], float(sys.argv[3])
    widgets = int(sys.argv[4]) if len(sys.argv) > 4 else 10_000
    stops = int(sys.argv[5]) if len(sys.argv) > 5 else 300
    interval = float(sys.argv[6]) if len(sys.argv) > 6 else 120
    rng = random.Random(11)
    ids = [f"2{100000 + 37 * i}" for i in range(stops)]
    popularity = [1 / (1 + i) ** 0.8 for i in range(stops)]
    # Every stop is someone's; the rest follow popularity.
    chosen = ids + rng.choices(ids, popularity, k=max(0, widgets - stops))
    modes = ["", "&mode=bus", "&mode=lightrail"]
    start = time.monotonic()
    deadline = start + seconds
    lock = threading.Lock()
    result = {"requests": 0, "statuses": {}, "stale": 0, "departed_seen": 0, "ages": []}
    target = urlparse(pier)
    threads = 8

    def worker(index):
        local = random.Random(index)
        # (due, widget) for this thread's widgets, each first due at a random phase of its interval.
        queue = [(start + local.uniform(0, interval), n) for n in range(index, widgets, threads)]
        heapq.heapify(queue)
        connection = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
        while queue:
            due, n = heapq.heappop(queue)
            if due >= deadline:
                break
            wait = due - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            address = f"10.{n // 65536}.{n // 256 % 256}.{n % 256}"
            path = f"/v1/nsw/departures?stop={chosen[n]}{modes[n % 3]}"
            try:
                connection.request("GET", path, headers={"X-Forwarded-For": address})
                response = connection.getresponse()
                body = response.read()
                status, age, stale = response.status, response.getheader("Age"), response.getheader("X-Pier-Stale")
            except Exception:
                connection = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
                status, age, stale, body = "error", None, None, b""
            departed = 0
            if status == 200:
                now = time.time()
                departed = sum(1 for event in json.loads(body)["stopEvents"] if parse(event["departureTime"]) <= now - 1)
            with lock:
                result["requests"] += 1
                result["statuses"][str(status)] = result["statuses"].get(str(status), 0) + 1
                result["stale"] += stale is not None
                result["departed_seen"] += departed
                if age is not None:
                    result["ages"].append(int(age))
            heapq.heappush(queue, (due + interval, n))

    stats_url = urlparse(upstream)

    def upstream_stats():
        connection = http.client.HTTPConnection(stats_url.hostname, stats_url.port)
        connection.request("GET", "/_stats")
        return json.loads(connection.getresponse().read())

    pool = [threading.Thread(target=worker, args=(n,)) for n in range(threads)]
    for thread in pool:
        thread.start()
    # The second half of the run is past the cold start (every stop's first call): its rate is the steady one.
    time.sleep(max(0, start + seconds / 2 - time.monotonic()))
    halfway = upstream_stats()["tfnsw"]
    for thread in pool:
        thread.join()
    stats = upstream_stats()
    ages = sorted(result.pop("ages")) or [0]
    calls = stats["tfnsw"]
    print(json.dumps(dict(
        result, seconds=seconds, widgets=widgets, stops=stops, interval_s=interval,
        age_s={"p50": ages[len(ages) // 2], "p90": ages[int(len(ages) * 0.9)], "max": ages[-1]},
        upstream_calls=calls, stops_asked=stats["stops"], calls_per_stop_max=stats["per_stop_max"],
        upstream_calls_second_half=calls - halfway,
        upstream_calls_per_hour=round((calls - halfway) * 3600 / (seconds / 2)),
        upstream_calls_per_day=round((calls - halfway) * 86400 / (seconds / 2)))))


if __name__ == "__main__":
    main()
