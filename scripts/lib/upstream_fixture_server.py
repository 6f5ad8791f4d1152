#!/usr/bin/env python3
"""A local stand-in for the on-demand upstreams, for scripts/bench: answers written on the fly by the fixture
generators for any point, lake, stop and time, so that cold keys are really cold. Each upstream is a module of
scripts/bench_upstreams/ (a `handle(path, query)` returning (status, body) for its own requests, else None, and a
`stats()` dict); this server knows none of them. GET /_stats answers every module's counts merged (the upstream's
own count, for the population simulations).
Usage: upstream_fixture_server.py PORT"""
import importlib.util, json, os, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlparse

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "fixtures"))
sys.path.insert(0, HERE)
FOLDER = os.path.join(HERE, "..", "bench_upstreams")


def load_upstreams():
    modules = []
    for name in sorted(os.listdir(FOLDER)):
        if name.endswith(".py") and not name.startswith("_"):
            spec = importlib.util.spec_from_file_location(f"bench_upstream_{name[:-3]}", os.path.join(FOLDER, name))
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            modules.append(module)
    return modules


UPSTREAMS = load_upstreams()
LOCK = threading.Lock()


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    # Headers and body go out in two writes; with Nagle on, the last segment of a keep-alive answer waits for the
    # client's delayed ACK (~40 ms) — a stall of this stand-in, not of the upstream or of Pier.
    disable_nagle_algorithm = True

    def do_GET(self):
        url = urlparse(self.path)
        query = parse_qs(url.query)
        status, body = 404, b'{"detail":"Not Found"}'
        if url.path == "/_stats":
            merged = {}
            for upstream in UPSTREAMS:
                merged.update(upstream.stats())
            status, body = 200, json.dumps(merged).encode()
        else:
            for upstream in UPSTREAMS:
                answer = upstream.handle(url.path, query)
                if answer is not None:
                    status, body = answer
                    break
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


if __name__ == "__main__":
    ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Handler).serve_forever()
