#!/usr/bin/env python3
"""Opens N keep-alive connections to 127.0.0.1:PORT, sends one GET on each, reads every answer, then
holds them all open and prints the server's resident memory (VmRSS and VmHWM of PID) as JSON.

Usage: hold_connections.py PORT PID N
"""
import json
import resource
import socket
import sys
import time


def rss_kib(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return -1


def main():
    port, pid, count = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, count + 1024)), hard))
    before = rss_kib(pid, "VmRSS")
    sockets = []
    request = b"GET /health HTTP/1.1\r\nHost: bench\r\n\r\n"
    started = time.monotonic()
    for _ in range(count):
        s = socket.create_connection(("127.0.0.1", port), timeout=30)
        s.sendall(request)
        sockets.append(s)
    answered = 0
    for s in sockets:
        data = s.recv(4096)
        if data.startswith(b"HTTP/1.1 200"):
            answered += 1
    # Let the server settle, then read its memory while every connection is still open.
    time.sleep(1)
    held = sum(1 for s in sockets if s.fileno() >= 0)
    print(json.dumps({
        "connections": count, "answered": answered, "held": held,
        "rss_before_kib": before, "rss_kib": rss_kib(pid, "VmRSS"), "peak_rss_kib": rss_kib(pid, "VmHWM"),
        "seconds_to_open": round(time.monotonic() - started, 2),
    }))
    for s in sockets:
        s.close()


if __name__ == "__main__":
    main()
