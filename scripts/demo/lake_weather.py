"""OpenWeather (lake weather): the three forecast fixtures, each recorded when its first slot began (the replay moves
them by whole 3-hour steps to now and serves the one nearest the point asked). The key is not recorded."""
import datetime as dt, json

FORECASTS = [("forecast-zurich-2026-07-04.json", "47.35", "8.55"), ("forecast-rapperswil-2026-11-23.json", "47.25", "8.80"),
             ("forecast-ouchy-2026-11-23.json", "46.50", "6.65")]


def record(demo):
    forecasts = []
    for name, lat, lon in FORECASTS:
        body = (demo.fixtures / "openweather" / name).read_bytes()
        first = json.loads(body)["list"][0]["dt"]
        received = dt.datetime.fromtimestamp(first, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        forecasts.append((f"https://api.openweathermap.org/data/2.5/forecast?lat={lat}&lon={lon}&appid=REDACTED&units=metric",
                          "application/json; charset=utf-8", body, received))
    demo.capture("lake-weather", "lake-weather", forecasts, "2026-11-23T09:00:00Z")
