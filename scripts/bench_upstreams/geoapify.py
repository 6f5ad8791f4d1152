"""Geoapify: the Nürnberg places fixture for any point; a geocoding search finds the city of
scripts/lib/places_population.py's CITIES it names (else nothing). Counts calls and the credits they cost (one per 20
places asked, one per search)."""
import json, os, threading

from places_population import CITIES

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
with open(os.path.join(ROOT, "Tests", "Fixtures", "geoapify", "places-nuernberg.json"), "rb") as file:
    PLACES = file.read()

LOCK = threading.Lock()
STATS = {"places": 0, "geocode": 0, "credits": 0}


def handle(path, query):
    if path == "/v2/places":
        limit = int(query.get("limit", ["20"])[0])
        with LOCK:
            STATS["places"] += 1
            STATS["credits"] += (limit + 19) // 20
        return 200, PLACES
    if path == "/v1/geocode/search":
        text = query.get("text", [""])[0].strip().lower()
        with LOCK:
            STATS["geocode"] += 1
            STATS["credits"] += 1
        features = [{"type": "Feature", "properties": {"name": name, "city": name, "lon": lon, "lat": lat},
                     "geometry": {"type": "Point", "coordinates": [lon, lat]}}
                    for name, lat, lon in CITIES if name.lower() == text]
        return 200, json.dumps({"type": "FeatureCollection", "features": features}).encode()
    return None


def stats():
    with LOCK:
        return dict(STATS)
