#!/usr/bin/env python3
"""A local stand-in for transport.opendata.ch's /v1/stationboard for scripts/bench: the fixture boards of
station 8503651 (Tests/Fixtures/transport), each date served the board of (date ordinal mod the number of
boards) with its dates moved to the requested one. Other stations are 404.
Usage: transport_fixture_server.py FIXTURE_DIR PORT"""
import datetime as dt, glob, os, re, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

BOARDS = []


def moved(text, days):
    """The board with every local date-time and epoch timestamp moved by whole days (also used by make_demo.py)."""
    text = re.sub(r'"(\d{4}-\d{2}-\d{2})T', lambda m: '"%sT' % (dt.date.fromisoformat(m.group(1)) + dt.timedelta(days=days)), text)
    return re.sub(r'("(?:departure|arrival)Timestamp": ?)(\d+)', lambda m: m.group(1) + str(int(m.group(2)) + days * 86400), text)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        url = urlparse(self.path)
        query = parse_qs(url.query)
        if url.path != "/v1/stationboard" or query.get("id", [""])[0] != "8503651":
            body, status = b'{"errors":[{"message":"Station not found"}]}', 404
        else:
            text = query.get("datetime", query.get("date", [dt.date.today().isoformat()]))[0][:10]
            day = dt.date.fromisoformat(text)
            original, board = BOARDS[day.toordinal() % len(BOARDS)]
            body, status = moved(board, (day - original).days).encode(), 200
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    for path in sorted(glob.glob(os.path.join(sys.argv[1], "stationboard-8503651-*.json"))):
        BOARDS.append((dt.date.fromisoformat(path[-15:-5]), open(path, encoding="utf-8").read()))
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[2])), Handler).serve_forever()
