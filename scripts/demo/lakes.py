"""MeteoNews: the lake table."""


def record(demo):
    demo.capture("lakes", "lakes", [("https://meteonews.ch/de/Cms/D121/seen-in-der-schweiz", "text/html; charset=utf-8",
                                     (demo.fixtures / "meteonews" / "seen-in-der-schweiz.2026-07-04.html").read_bytes(), "2026-11-23T03:00:00Z")],
                 "2026-11-23T03:00:00Z")
