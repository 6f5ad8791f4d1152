"""FMI's warnings: the RSS feed of the constructed current publication and the CAP documents it links, as written
for 2026-11-23T10:00:00Z (the replay moves their times by the whole hours since): an orange wind warning and a
yellow traffic warning over Helsinki, and the rest of Tests/Fixtures/fmi-warnings."""
import re


def record(demo):
    folder = demo.fixtures / "fmi-warnings"
    feed = (folder / "feed" / "rss_en-GB.rss").read_bytes()
    exchanges = [("https://alerts.fmi.fi/cap/feed/rss_en-GB.rss", "application/rss+xml; charset=UTF-8", feed, "2026-11-23T10:00:00Z")]
    for link in re.findall(rb"<link>(https://alerts\.fmi\.fi/cap/[^<]+\.xml)</link>", feed):
        path = link.decode().removeprefix("https://alerts.fmi.fi/cap/")
        exchanges.append((link.decode(), "application/cap+xml; charset=UTF-8", (folder / "cap" / path).read_bytes(), "2026-11-23T10:00:00Z"))
    demo.capture("warnings", "warnings", exchanges, "2026-11-23T10:00:00Z")
