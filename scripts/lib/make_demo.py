#!/usr/bin/env python3
"""Writes Demo/ (the recordings `pier serve --demo` replays) from the fixtures in Tests/Fixtures, in the capture
format of `pier fetch --save` (NNN.body + NNN.json, run.json). Run it again after changing a fixture.
ZSG: seven day fragments for 2026-11-23 … 2026-11-29 (the four fixture pages in turn); transport.opendata.ch:
the stationboard of Zürich Bürkliplatz (See) for the same seven days (the fixture board of the same page, moved to
the date, so every course of the day departs); MeteoNews: the lake table; FMI: the all-stations observations and a point forecast, both anchored at 2026-11-23T06:00:00Z (the
replay moves them to the current hour); TfNSW: the departures of the Trip Planner app's two default stops; Geoapify:
Nürnberg's old town for any point and Nürnberg's geocoding; Wikipedia: two summaries and one search."""
import calendar, datetime as dt, json, pathlib, shutil, sys

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from transport_fixture_server import moved  # noqa: E402

root = pathlib.Path(__file__).resolve().parents[2]
fixtures = root / "Tests" / "Fixtures"
demo = root / "Demo"


def capture(folder, source, exchanges, started):
    path = demo / folder
    path.mkdir(parents=True)
    for index, (url, content_type, body, received) in enumerate(exchanges, start=1):
        name = f"{index:03d}"
        (path / f"{name}.body").write_bytes(body)
        meta = {"url": url, "status": 200, "headers": {"Content-Type": content_type}, "receivedAt": received, "body": f"{name}.body"}
        (path / f"{name}.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    run = {"source": source, "outcome": "ok", "startedAt": started, "exchanges": len(exchanges)}
    (path / "run.json").write_text(json.dumps(run, indent=2, sort_keys=True) + "\n")


shutil.rmtree(demo, ignore_errors=True)
pages = [fixtures / "zsg" / name for name in
         ["schiffeinsatz-23.11.2026.html", "schiffeinsatz-24.11.2026.html", "schiffeinsatz-04.07.2026.html", "schiffeinsatz-05.07.2026.html"]]
days = []
for offset in range(7):
    date = dt.date(2026, 11, 23) + dt.timedelta(days=offset)
    milliseconds = calendar.timegm(dt.datetime(date.year, date.month, date.day, 12).timetuple()) * 1000
    days.append((f"https://einsatzderschiffe.zsg.ch/schiffeinsatz?timestamp={milliseconds}", "text/html; charset=utf-8",
                 pages[offset % len(pages)].read_bytes(), "2026-11-23T02:00:00Z"))
capture("ships", "ships", days, "2026-11-23T02:00:00Z")
boards = []
for offset in range(7):
    date = dt.date(2026, 11, 23) + dt.timedelta(days=offset)
    page = pages[offset % len(pages)].name  # schiffeinsatz-DD.MM.YYYY.html
    fixture = dt.datetime.strptime(page[len("schiffeinsatz-"):-len(".html")], "%d.%m.%Y").date()
    text = (fixtures / "transport" / f"stationboard-8503651-{fixture}.json").read_text(encoding="utf-8")
    boards.append((f"https://transport.opendata.ch/v1/stationboard?id=8503651&limit=30&date={date}", "application/json",
                   moved(text, (date - fixture).days).encode(), "2026-11-23T06:00:00Z"))
capture("stationboard", "stationboard", boards, "2026-11-23T06:00:00Z")
capture("lakes", "lakes", [("https://meteonews.ch/de/Cms/D121/seen-in-der-schweiz", "text/html; charset=utf-8",
                            (fixtures / "meteonews" / "seen-in-der-schweiz.2026-07-04.html").read_bytes(), "2026-11-23T03:00:00Z")],
        "2026-11-23T03:00:00Z")
wfs = "https://opendata.fmi.fi/wfs?service=WFS&version=2.0.0&request=getFeature&storedquery_id="
capture("weather", "weather", [
    (wfs + "fmi::observations::weather::timevaluepair&bbox=19.1,59.7,31.7,70.1&starttime=2026-11-23T05:00:00Z&endtime=2026-11-23T06:00:00Z"
     "&timestep=10&parameters=t2m,ws_10min,wd_10min,rh,p_sea,wawa,n_man", "text/xml; charset=UTF-8",
     (fixtures / "fmi" / "observations.xml").read_bytes(), "2026-11-23T06:00:00Z"),
    (wfs + "fmi::forecast::edited::weather::scandinavia::point::timevaluepair&latlon=60.1700,24.9400&timestep=60"
     "&parameters=Temperature,WindSpeedMS,WindDirection,Humidity,Pressure,Precipitation1h,WeatherSymbol3", "text/xml; charset=UTF-8",
     (fixtures / "fmi" / "forecast-point.xml").read_bytes(), "2026-11-23T06:00:00Z"),
], "2026-11-23T06:00:00Z")

# OpenWeather (lake weather): the three forecast fixtures, each recorded when its first slot began (the replay
# moves them by whole 3-hour steps to now and serves the one nearest the point asked). The key is not recorded.
forecasts = []
for name, lat, lon in [("forecast-zurich-2026-07-04.json", "47.35", "8.55"), ("forecast-rapperswil-2026-11-23.json", "47.25", "8.80"),
                       ("forecast-ouchy-2026-11-23.json", "46.50", "6.65")]:
    body = (fixtures / "openweather" / name).read_bytes()
    first = json.loads(body)["list"][0]["dt"]
    received = dt.datetime.fromtimestamp(first, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    forecasts.append((f"https://api.openweathermap.org/data/2.5/forecast?lat={lat}&lon={lon}&appid=REDACTED&units=metric",
                      "application/json; charset=utf-8", body, received))
capture("lake-weather", "lake-weather", forecasts, "2026-11-23T09:00:00Z")

# Alplakes: every lake of the app's mapping, written by the fixture generator at 2026-11-23 09:00 UTC (profile)
# with the surface series from 6 hours before to 54 hours after (what Pier asks).
sys.path.insert(0, str(root / "scripts" / "fixtures"))
import gen_alplakes  # noqa: E402

anchor = dt.datetime(2026, 11, 23, 9, tzinfo=dt.timezone.utc)
start, end = anchor - dt.timedelta(hours=6), anchor + dt.timedelta(hours=54)
exchanges = []
for lake in dict.fromkeys(key for _, key in gen_alplakes.MAPPING):
    base = "https://alplakes-api.eawag.ch/simulations/1d"
    exchanges.append((f"{base}/profile/simstrat/{lake}/{gen_alplakes.path_time(anchor)}", "application/json",
                      json.dumps(gen_alplakes.profile(lake, anchor), separators=(",", ":")).encode(), "2026-11-23T09:00:00Z"))
    exchanges.append((f"{base}/point/simstrat/{lake}/{gen_alplakes.path_time(start)}/{gen_alplakes.path_time(end)}/0", "application/json",
                      json.dumps(gen_alplakes.point(lake, start, end), separators=(",", ":")).encode(), "2026-11-23T09:00:00Z"))
capture("alplakes", "alplakes", exchanges, "2026-11-23T09:00:00Z")

# TfNSW departures (Sydney): the Trip Planner app's two default stops, written by the fixture generator at
# 2026-11-23 21:00 UTC (08:00 in Sydney) with 30 departures each, and the unknown-stop answer for any other stop
# (recorded as `name_dm=*`). The replay moves them by the whole minutes since, so they leave from now on.
import gen_nsw  # noqa: E402

anchor = dt.datetime(2026, 11, 23, 21, tzinfo=dt.timezone.utc)
base = ("https://api.transport.nsw.gov.au/v1/tp/departure_mon?outputFormat=rapidJSON&coordOutputFormat=EPSG%3A4326&mode=direct"
        "&type_dm=stop&name_dm={}&depArrMacro=dep&itdDate=20261124&itdTime=0800&departureMonitorMacro=true&TfNSWDM=true")
departures = [(base.format(stop), "application/json", json.dumps(gen_nsw.departure_mon(stop, anchor, count=30)[0], separators=(",", ":")).encode(),
               "2026-11-23T21:00:00Z") for stop in ["G203519", "203294"]]
departures.append((base.format("*"), "application/json", json.dumps(gen_nsw.unknown_stop(), separators=(",", ":")).encode(), "2026-11-23T21:00:00Z"))
capture("nsw", "nsw", departures, "2026-11-23T21:00:00Z")


# Geoapify (places, geocoding): Nürnberg's old town answers any places request (the replay has one recording for
# the path); a geocoding search for Nürnberg finds it, any other text (`text=*`) finds nothing. The key is not recorded.
empty = b'{"type":"FeatureCollection","features":[]}'
capture("places", "places", [
    ("https://api.geoapify.com/v2/places?categories=entertainment.museum,leisure.park,tourism.attraction&filter=circle:11.07750,49.45390,5000"
     "&limit=50&lang=de&apiKey=REDACTED", "application/json; charset=utf-8", (fixtures / "geoapify" / "places-nuernberg.json").read_bytes(),
     "2026-11-23T10:00:00Z"),
], "2026-11-23T10:00:00Z")
capture("geocode", "geocode", [
    ("https://api.geoapify.com/v1/geocode/search?text=n%C3%BCrnberg&lang=de&apiKey=REDACTED", "application/json; charset=utf-8",
     (fixtures / "geoapify" / "geocode-nuernberg.json").read_bytes(), "2026-11-23T10:00:00Z"),
    ("https://api.geoapify.com/v1/geocode/search?text=*&lang=de&apiKey=REDACTED", "application/json; charset=utf-8", empty,
     "2026-11-23T10:00:00Z"),
], "2026-11-23T10:00:00Z")

# Wikipedia: the two fixture summaries (any other title is the replay's 404: no such page) and the app's search for
# the Schöner Brunnen; any other search (`search=*`) finds no titles.
summary = "https://de.wikipedia.org/api/rest_v1/page/summary/"
opensearch = "https://de.wikipedia.org/w/api.php?action=opensearch&search={}&limit=5&namespace=0&format=json"
capture("wikipedia", "wikipedia", [
    (summary + "Kaiserburg_N%C3%BCrnberg", "application/json; charset=utf-8",
     (fixtures / "wikipedia" / "summary-Kaiserburg_Nuernberg.json").read_bytes(), "2026-11-23T10:00:00Z"),
    (summary + "Sch%C3%B6ner_Brunnen", "application/json; charset=utf-8",
     (fixtures / "wikipedia" / "summary-Schoener_Brunnen.json").read_bytes(), "2026-11-23T10:00:00Z"),
    (opensearch.format("Sch%C3%B6ner%20Brunnen%20N%C3%BCrnberg"), "application/json; charset=utf-8",
     (fixtures / "wikipedia" / "opensearch-Schoener_Brunnen_Nuernberg.json").read_bytes(), "2026-11-23T10:00:00Z"),
    (opensearch.format("*"), "application/json; charset=utf-8", b'["",[],[],[]]', "2026-11-23T10:00:00Z"),
], "2026-11-23T10:00:00Z")
