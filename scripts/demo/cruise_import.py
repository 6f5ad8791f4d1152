"""ShipTrip's booking import: Gemini's answer to the made-up river cruise in Tests/Fixtures/gemini (any text posted gets
it: a replay holds no user's text), and Geoapify's geocoding of its four ports (lang=en, as the import asks), written
here as the one-result collections Geoapify answers for a town, with the towns' public coordinates. No key is recorded."""
import json
import urllib.parse

RECEIVED = "2026-11-23T10:00:00Z"
PORTS = [
    ("Passau", "passau, deutschland", 48.5667, 13.4319),
    ("Regensburg", "regensburg, deutschland", 49.0134, 12.1016),
    ("Kelheim", "kelheim, deutschland", 48.9170, 11.8857),
    ("Nuremberg", "nürnberg, deutschland", 49.4539, 11.0773),
]


def town(name, text, lat, lon):
    feature = {
        "type": "Feature",
        "properties": {"name": name, "country": "Germany", "country_code": "de", "state": "Bavaria", "city": name, "lon": lon, "lat": lat,
                       "formatted": f"{name}, Bavaria, Germany", "result_type": "city", "place_id": f"demo-{name.lower()}"},
        "geometry": {"type": "Point", "coordinates": [lon, lat]},
    }
    return json.dumps({"type": "FeatureCollection", "features": [feature], "query": {"text": text}}, ensure_ascii=False).encode()


def record(demo):
    demo.capture("gemini", "cruise-import", [
        ("https://generativelanguage.googleapis.com/v1beta/models/gemini-3.5-flash-lite:generateContent", "application/json; charset=UTF-8",
         (demo.fixtures / "gemini" / "answer-river-cruise.json").read_bytes(), RECEIVED),
    ], RECEIVED)
    demo.capture("cruise-ports", "geocode", [
        (f"https://api.geoapify.com/v1/geocode/search?text={urllib.parse.quote(text)}&lang=en&apiKey=REDACTED", "application/json; charset=utf-8",
         town(name, text, lat, lon), RECEIVED)
        for name, text, lat, lon in PORTS
    ], RECEIVED)
