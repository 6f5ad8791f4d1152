"""transport.opendata.ch: the stationboard of Zürich Bürkliplatz (See) for the ships' seven days (the fixture board
of the same ZSG page, moved to the date, so every course of the day departs)."""
import datetime as dt

from transport_fixture_server import moved

PAGES = ["schiffeinsatz-23.11.2026.html", "schiffeinsatz-24.11.2026.html", "schiffeinsatz-04.07.2026.html", "schiffeinsatz-05.07.2026.html"]


def record(demo):
    boards = []
    for offset in range(7):
        date = dt.date(2026, 11, 23) + dt.timedelta(days=offset)
        page = PAGES[offset % len(PAGES)]  # schiffeinsatz-DD.MM.YYYY.html
        fixture = dt.datetime.strptime(page[len("schiffeinsatz-"):-len(".html")], "%d.%m.%Y").date()
        text = (demo.fixtures / "transport" / f"stationboard-8503651-{fixture}.json").read_text(encoding="utf-8")
        boards.append((f"https://transport.opendata.ch/v1/stationboard?id=8503651&limit=30&date={date}", "application/json",
                       moved(text, (date - fixture).days).encode(), "2026-11-23T06:00:00Z"))
    demo.capture("stationboard", "stationboard", boards, "2026-11-23T06:00:00Z")
