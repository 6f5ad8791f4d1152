"""MeteoNews: the lake table."""


def record(demo):
    demo.capture("lakes", "lakes", [("https://meteonews.ch/de/Cms/D121/seen-in-der-schweiz", "text/html; charset=utf-8",
                                     (demo.fixtures / "meteonews" / "seen-in-der-schweiz.2026-07-04.html").read_bytes(), "2026-11-23T03:00:00Z")],
                 "2026-11-23T03:00:00Z")
    # The level history the demo serves at /v1/water-levels: 40 days before the recording for every lake the table
    # shows a level for, in `pier import water-levels`' CSV (Pier moves the days so that the last is yesterday).
    import datetime, json, math
    expected = json.loads((demo.fixtures / "meteonews" / "seen-in-der-schweiz.2026-07-04.expected.json").read_text())
    last = datetime.date(2026, 11, 22)
    lines = ["lake_name,date,level_m"]
    for number, lake in enumerate(expected["lakes"]):
        if not lake["waterLevel"]:
            continue
        level = float(lake["waterLevel"].split()[0])
        for back in range(39, -1, -1):
            drift = 0.004 * back + 0.03 * math.sin((back + number) / 5)
            lines.append(f"{lake['name']},{last - datetime.timedelta(days=back)},{level - drift:.2f}")
    path = demo.folder / "lake-levels"
    path.mkdir(parents=True)
    (path / "levels.csv").write_text("\n".join(lines) + "\n")
