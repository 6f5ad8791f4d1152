#!/usr/bin/env python3
"""Asks one URL through a standard HTTP cache (CacheControl, an RFC 9111 cache for requests) three times — at
once, again within max-age, and again after it — and prints what the cache did as JSON lines, for the
client-behaviour tests: {"step", "status", "from_cache", "body_sha1"}. The server's own counters say what it
was asked. Usage: http_cache_check.py URL WAIT_SECONDS"""
import hashlib, json, sys, time

import requests
from cachecontrol import CacheControl

url, wait = sys.argv[1], float(sys.argv[2])
session = CacheControl(requests.Session())


def ask(step):
    response = session.get(url, timeout=10)
    print(json.dumps({"step": step, "status": response.status_code, "from_cache": bool(getattr(response, "from_cache", False)),
                      "body_sha1": hashlib.sha1(response.content).hexdigest()}), flush=True)


ask("first")
ask("within-max-age")
time.sleep(wait)
ask("after-max-age")
