"""Geoapify (places, geocoding): Nürnberg's old town answers any places request (the replay has one recording for the
path); a geocoding search for Nürnberg finds it, any other text (`text=*`) finds nothing. The key is not recorded."""

EMPTY = b'{"type":"FeatureCollection","features":[]}'


def record(demo):
    geoapify = demo.fixtures / "geoapify"
    demo.capture("places", "places", [
        ("https://api.geoapify.com/v2/places?categories=entertainment.museum,leisure.park,tourism.attraction&filter=circle:11.07750,49.45390,5000"
         "&limit=50&lang=de&apiKey=REDACTED", "application/json; charset=utf-8", (geoapify / "places-nuernberg.json").read_bytes(),
         "2026-11-23T10:00:00Z"),
    ], "2026-11-23T10:00:00Z")
    demo.capture("geocode", "geocode", [
        ("https://api.geoapify.com/v1/geocode/search?text=n%C3%BCrnberg&lang=de&apiKey=REDACTED", "application/json; charset=utf-8",
         (geoapify / "geocode-nuernberg.json").read_bytes(), "2026-11-23T10:00:00Z"),
        ("https://api.geoapify.com/v1/geocode/search?text=*&lang=de&apiKey=REDACTED", "application/json; charset=utf-8", EMPTY,
         "2026-11-23T10:00:00Z"),
    ], "2026-11-23T10:00:00Z")
