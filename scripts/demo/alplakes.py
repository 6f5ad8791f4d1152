"""Alplakes: every lake of the app's mapping, written by the fixture generator at 2026-11-23 09:00 UTC (profile) with
the surface series from 6 hours before to 54 hours after (what Pier asks)."""
import datetime as dt, json

import gen_alplakes


def record(demo):
    anchor = dt.datetime(2026, 11, 23, 9, tzinfo=dt.timezone.utc)
    start, end = anchor - dt.timedelta(hours=6), anchor + dt.timedelta(hours=54)
    exchanges = []
    for lake in dict.fromkeys(key for _, key in gen_alplakes.MAPPING):
        base = "https://alplakes-api.eawag.ch/simulations/1d"
        exchanges.append((f"{base}/profile/simstrat/{lake}/{gen_alplakes.path_time(anchor)}", "application/json",
                          json.dumps(gen_alplakes.profile(lake, anchor), separators=(",", ":")).encode(), "2026-11-23T09:00:00Z"))
        exchanges.append((f"{base}/point/simstrat/{lake}/{gen_alplakes.path_time(start)}/{gen_alplakes.path_time(end)}/0", "application/json",
                          json.dumps(gen_alplakes.point(lake, start, end), separators=(",", ":")).encode(), "2026-11-23T09:00:00Z"))
    demo.capture("alplakes", "alplakes", exchanges, "2026-11-23T09:00:00Z")
