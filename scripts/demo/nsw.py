"""TfNSW departures (Sydney): the Trip Planner app's two default stops, written by the fixture generator at
2026-11-23 21:00 UTC (08:00 in Sydney) with 30 departures each, and the unknown-stop answer for any other stop
(recorded as `name_dm=*`). The replay moves them by the whole minutes since, so they leave from now on."""
import datetime as dt, json

import gen_nsw

BASE = ("https://api.transport.nsw.gov.au/v1/tp/departure_mon?outputFormat=rapidJSON&coordOutputFormat=EPSG%3A4326&mode=direct"
        "&type_dm=stop&name_dm={}&depArrMacro=dep&itdDate=20261124&itdTime=0800&departureMonitorMacro=true&TfNSWDM=true")


def record(demo):
    anchor = dt.datetime(2026, 11, 23, 21, tzinfo=dt.timezone.utc)
    departures = [(BASE.format(stop), "application/json", json.dumps(gen_nsw.departure_mon(stop, anchor, count=30)[0], separators=(",", ":")).encode(),
                   "2026-11-23T21:00:00Z") for stop in ["G203519", "203294"]]
    departures.append((BASE.format("*"), "application/json", json.dumps(gen_nsw.unknown_stop(), separators=(",", ":")).encode(), "2026-11-23T21:00:00Z"))
    demo.capture("nsw", "nsw", departures, "2026-11-23T21:00:00Z")
