#!/usr/bin/env python3
"""Checks that the compose deployment keeps real client addresses (docs/operations/keys-and-budgets.md, "Who a client is").

Reads the resolved configuration (`docker-compose config` output) on standard input and the Caddyfile named as the
first argument, and fails unless:
  - Caddy publishes its ports on networks that have IPv6 (enable_ipv6 and an IPv6 subnet) and IPv4: on an IPv4-only
    network Docker's userland proxy hands every IPv6 client on from the bridge gateway, one address for all;
  - every subnet of those networks is among the api's PIER_TRUSTED_PROXIES (Caddy's hop is trusted, so the entry
    Caddy appends to X-Forwarded-For is taken as the client);
  - the Caddyfile sets no `trusted_proxies` (Caddy then replaces any X-Forwarded-For a client sends with the
    address it sees, so a client cannot name itself).
"""
import ipaddress
import re
import sys

import yaml


def fail(message):
    print(f"compose client addresses: {message}", file=sys.stderr)
    sys.exit(1)


config = yaml.safe_load(sys.stdin)
services = config.get("services", {})
caddy, api = services.get("caddy"), services.get("api")
if not caddy or not api:
    fail("the compose file needs the services caddy and api")
if caddy.get("network_mode"):
    fail("caddy must run on the compose network (network_mode would bypass it)")
if not caddy.get("ports"):
    fail("caddy publishes no ports")

networks = config.get("networks", {})
names = caddy.get("networks") or {"default": None}
trusted = [ipaddress.ip_network(entry.strip(), strict=False)
           for entry in str(api.get("environment", {}).get("PIER_TRUSTED_PROXIES", "")).split(",") if entry.strip()]
for name in names:
    network = networks.get(name) or {}
    if not network.get("enable_ipv6"):
        fail(f"network {name!r} has no IPv6 (enable_ipv6): every IPv6 client would reach Caddy as the bridge gateway")
    subnets = [ipaddress.ip_network(entry["subnet"]) for entry in (network.get("ipam") or {}).get("config", []) if "subnet" in entry]
    if not any(subnet.version == 6 for subnet in subnets) or not any(subnet.version == 4 for subnet in subnets):
        fail(f"network {name!r} needs an IPv4 and an IPv6 subnet")
    for subnet in subnets:
        if not any(subnet.version == proxy.version and subnet.subnet_of(proxy) for proxy in trusted):
            fail(f"network {name!r}'s subnet {subnet} is not within PIER_TRUSTED_PROXIES: Caddy's hop would be taken as the client")

with open(sys.argv[1], encoding="utf-8") as caddyfile:
    lines = [line.split("#", 1)[0] for line in caddyfile]
if any(re.search(r"\btrusted_proxies\b", line) for line in lines):
    fail("the Caddyfile trusts incoming X-Forwarded-For (trusted_proxies): clients could name themselves")
print("compose client addresses: IPv4 and IPv6 clients reach Caddy with their own addresses; Caddy's hop is trusted")
