#!/usr/bin/env python3
"""Simulates Smart City Guide users planning walking tours through /v1/geocode and /v1/places, and reports what it
cost at Geoapify (the local stand-in's own count, GET /_stats of scripts/lib/upstream_fixture_server.py).

A user plans one tour in one of CITIES (20 German-speaking cities; popularity 1/(1+i)^0.8, so the first cities are
asked most), the way the app asks:
- 60 %: by city name — `/v1/geocode?text=<name>` (typed as users type it: any case, stray spaces) and then the
  places around the city's point, `filter=circle:<lon>,<lat>,5000`;
- 25 %: "my location" — the places around the phone's position, 5,000 m: a point near one of the city's 8
  hotspots (old town, station, …; Gaussian, σ 150 m), to the metre;
- 15 %: quick planning from the phone's position, 2,000 m.
Always the app's categories, `limit=50`, `lang=de`.

    places_population.py PIER_URL UPSTREAM_URL USERS [SEED]

Prints one JSON line: users, requests, statuses, stale answers, Geoapify calls (places, geocode) and credits spent
during the run, credits per user.
"""
import http.client, json, math, random, sys, threading
from urllib.parse import quote, urlparse

CITIES = [
    ("Berlin", 52.5200, 13.4050), ("Hamburg", 53.5511, 9.9937), ("München", 48.1372, 11.5756), ("Köln", 50.9375, 6.9603),
    ("Frankfurt am Main", 50.1109, 8.6821), ("Stuttgart", 48.7758, 9.1829), ("Düsseldorf", 51.2277, 6.7735),
    ("Leipzig", 51.3397, 12.3731), ("Dortmund", 51.5136, 7.4653), ("Dresden", 51.0504, 13.7373), ("Nürnberg", 49.4539, 11.0775),
    ("Hannover", 52.3759, 9.7320), ("Bremen", 53.0793, 8.8017), ("Wien", 48.2082, 16.3738), ("Zürich", 47.3769, 8.5417),
    ("Salzburg", 47.8095, 13.0550), ("Heidelberg", 49.3988, 8.6724), ("Regensburg", 49.0134, 12.1016),
    ("Bamberg", 49.8988, 10.9028), ("Freiburg im Breisgau", 47.9990, 7.8421),
]
CATEGORIES = "tourism.attraction,entertainment.museum,leisure.park"


def typed(name, rng):
    """The name as a user types it."""
    variant = rng.choice([name, name.lower(), name.upper(), " " + name, name + " ", name.replace(" ", "  ")])
    return quote(variant)


def main():
    pier, upstream, users = sys.argv[1], sys.argv[2], int(sys.argv[3])
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    rng = random.Random(seed)
    layout = random.Random(7)  # the cities' hotspots are the same in every run
    hotspots = {name: [(lat + layout.gauss(0, 0.008), lon + layout.gauss(0, 0.012)) for _ in range(8)] for name, lat, lon in CITIES}
    popularity = [1 / (1 + i) ** 0.8 for i in range(len(CITIES))]
    plans = []
    for _ in range(users):
        name, lat, lon = rng.choices(CITIES, popularity)[0]
        kind = rng.random()
        spot_lat, spot_lon = rng.choice(hotspots[name])
        metres = 1 / 111_195
        here = (spot_lat + rng.gauss(0, 150) * metres, spot_lon + rng.gauss(0, 150) * metres / math.cos(math.radians(spot_lat)))
        if kind < 0.6:
            plans.append(("city", typed(name, rng), None, 5000))
        else:
            plans.append(("here", None, here, 5000 if kind < 0.85 else 2000))
    before = stats(upstream)
    lock = threading.Lock()
    result = {"users": users, "requests": 0, "statuses": {}, "stale": 0}
    target = urlparse(pier)

    def get(connection, path):
        connection.request("GET", path)
        response = connection.getresponse()
        body = response.read()
        with lock:
            result["requests"] += 1
            result["statuses"][str(response.status)] = result["statuses"].get(str(response.status), 0) + 1
            if response.getheader("X-Pier-Stale"):
                result["stale"] += 1
        return response.status, body

    def worker(index):
        connection = http.client.HTTPConnection(target.hostname, target.port, timeout=30)
        for kind, text, here, radius in plans[index::8]:
            if kind == "city":
                status, body = get(connection, f"/v1/geocode?text={text}&lang=de")
                features = json.loads(body).get("features", []) if status == 200 else []
                if not features:
                    continue
                lon, lat = features[0]["geometry"]["coordinates"][:2]
            else:
                lat, lon = here
            get(connection, f"/v1/places?categories={CATEGORIES}&filter=circle:{lon},{lat},{radius}&limit=50&lang=de")

    threads = [threading.Thread(target=worker, args=(index,)) for index in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    after = stats(upstream)
    for key in ("places", "geocode", "credits"):
        result[f"geoapify_{key}"] = after[key] - before[key]
    result["credits_per_user"] = round(result["geoapify_credits"] / max(1, users), 3)
    print(json.dumps(result))


def stats(upstream):
    target = urlparse(upstream)
    connection = http.client.HTTPConnection(target.hostname, target.port, timeout=10)
    connection.request("GET", "/_stats")
    return json.loads(connection.getresponse().read())


if __name__ == "__main__":
    main()
