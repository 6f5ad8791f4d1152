#!/usr/bin/env python3
"""Sends one request N times, one at a time, and reads each answer whole: on one keep-alive connection, or (`--close`)
on a connection of its own each with `Connection: close`. Exits 1 on a status other than the one expected.
For counting a server's instructions per request (scripts/bench's `instructions` section): the client's own work is
outside the count.

Usage: request_loop.py PORT N [--close] [--status 200] [--method POST --body TEXT] [--header 'Name: value' ...] PATH
"""
import argparse
import socket
import sys

arguments = argparse.ArgumentParser()
arguments.add_argument("port", type=int)
arguments.add_argument("count", type=int)
arguments.add_argument("path")
arguments.add_argument("--close", action="store_true")
arguments.add_argument("--status", type=int, default=200)
arguments.add_argument("--method", default="GET")
arguments.add_argument("--body", default="")
arguments.add_argument("--header", action="append", default=[])
options = arguments.parse_args()

body = options.body.encode()
head = [f"{options.method} {options.path} HTTP/1.1", "Host: 127.0.0.1"] + options.header
if body:
    head.append(f"Content-Length: {len(body)}")
if options.close:
    head.append("Connection: close")
request = ("\r\n".join(head) + "\r\n\r\n").encode() + body


def answer(connection, pending):
    """Reads one response; returns its status and the bytes read past it."""
    while True:
        end = pending.find(b"\r\n\r\n")
        if end >= 0:
            lines = pending[:end].decode("latin-1").split("\r\n")
            length = next((int(line.split(":", 1)[1]) for line in lines if line.lower().startswith("content-length:")), 0)
            if len(pending) >= end + 4 + length:
                return int(lines[0].split()[1]), pending[end + 4 + length:]
        chunk = connection.recv(1 << 16)
        if not chunk:
            sys.exit(f"the server closed the connection ({options.path})")
        pending += chunk


connection = None if options.close else socket.create_connection(("127.0.0.1", options.port))
pending = b""
for _ in range(options.count):
    if options.close:
        connection = socket.create_connection(("127.0.0.1", options.port))
        pending = b""
    connection.sendall(request)
    status, pending = answer(connection, pending)
    if status != options.status:
        sys.exit(f"{options.path}: {status}, expected {options.status}")
    if options.close:
        connection.close()
