"""ZSG: seven day fragments for 2026-11-23 … 2026-11-29 (the four fixture pages in turn)."""
import calendar, datetime as dt

PAGES = ["schiffeinsatz-23.11.2026.html", "schiffeinsatz-24.11.2026.html", "schiffeinsatz-04.07.2026.html", "schiffeinsatz-05.07.2026.html"]


def record(demo):
    pages = [demo.fixtures / "zsg" / name for name in PAGES]
    days = []
    for offset in range(7):
        date = dt.date(2026, 11, 23) + dt.timedelta(days=offset)
        milliseconds = calendar.timegm(dt.datetime(date.year, date.month, date.day, 12).timetuple()) * 1000
        days.append((f"https://einsatzderschiffe.zsg.ch/schiffeinsatz?timestamp={milliseconds}", "text/html; charset=utf-8",
                     pages[offset % len(pages)].read_bytes(), "2026-11-23T02:00:00Z"))
    demo.capture("ships", "ships", days, "2026-11-23T02:00:00Z")
