#!/usr/bin/env python3
"""The monitoring profile as compose resolves it (`docker-compose --profile monitoring config` on stdin).

- Prometheus and Grafana exist only under the `monitoring` profile; api, db and caddy under none (without the profile
  nothing changes; the `ha` profile's services are compose_ha.py's);
- every image is pinned to a version (no `latest`, no bare name);
- every file or folder the two mount from the repository exists, and Prometheus's rule files are where its
  configuration looks for them;
- Grafana's admin password comes from .env (GRAFANA_ADMIN_PASSWORD) and Grafana refuses to start while it is empty;
  no port of either is published beyond the host's loopback.

Usage: docker-compose … config | compose_monitoring.py REPOSITORY GRAFANA_ADMIN_PASSWORD (the value the .env given to
compose holds)
"""
import os
import re
import sys

import yaml

repository = os.path.realpath(sys.argv[1])
password = sys.argv[2]
config = yaml.safe_load(sys.stdin)
services = config["services"]
problems = []

for name in ("prometheus", "grafana"):
    if name not in services:
        problems.append(f"no {name} service")
    elif services[name].get("profiles") != ["monitoring"]:
        problems.append(f"{name} is not under exactly the monitoring profile: {services[name].get('profiles')}")
for name, service in services.items():
    # The `ha` profile's services are compose_ha.py's to check.
    if name not in ("prometheus", "grafana") and service.get("profiles") not in (None, ["ha"]):
        problems.append(f"{name} has profiles {service['profiles']}: without --profile monitoring it must run as before")
    image = service.get("image", "")
    if name != "api" and not re.fullmatch(r"[\w./-]+:v?\d+(\.\d+)*(-[\w.]+)?", image):
        problems.append(f"{name}'s image {image!r} is not pinned to a version")

for name in ("prometheus", "grafana"):
    for volume in services.get(name, {}).get("volumes", []):
        if isinstance(volume, dict):
            source, kind = volume.get("source", ""), volume.get("type")
        else:
            source, kind = volume.split(":")[0], "bind" if volume.startswith(("/", ".")) else "volume"
        if kind == "bind":
            path = os.path.realpath(source)
            if not path.startswith(repository + os.sep):
                problems.append(f"{name} mounts {source}, outside the repository")
            elif not os.path.exists(path):
                problems.append(f"{name} mounts {os.path.relpath(path, repository)}, which does not exist")
    for port in services.get(name, {}).get("ports", []):
        host_ip = port.get("host_ip") if isinstance(port, dict) else str(port).split(":")[0]
        if host_ip != "127.0.0.1":
            problems.append(f"{name} publishes {port} beyond the host's loopback")

prometheus_config = os.path.join(repository, "deploy/monitoring/prometheus/prometheus.yml")
shipped = yaml.safe_load(open(prometheus_config))
if shipped.get("rule_files") != ["/etc/prometheus/rules/*.yml"]:
    problems.append(f"prometheus.yml's rule_files {shipped.get('rule_files')} is not where the rules are mounted")
targets = [sd for job in shipped.get("scrape_configs", []) for sd in job.get("dns_sd_configs", [])]
if not any("api" in sd.get("names", []) and sd.get("port") == 8080 for sd in targets):
    problems.append("prometheus.yml does not scrape every api replica (dns_sd_configs names: [api], port 8080)")

grafana = services.get("grafana", {})
environment = grafana.get("environment", {})
if isinstance(environment, list):
    environment = dict(item.split("=", 1) for item in environment)
if environment.get("GF_SECURITY_ADMIN_PASSWORD") != password:
    problems.append("Grafana's admin password is not the .env's GRAFANA_ADMIN_PASSWORD")
entrypoint = " ".join(grafana.get("entrypoint") or [])
if "GF_SECURITY_ADMIN_PASSWORD" not in entrypoint or "exit 1" not in entrypoint:
    problems.append("Grafana does not refuse to start without an admin password")
if "GRAFANA_ADMIN_PASSWORD=" not in open(os.path.join(repository, ".env.example")).read():
    problems.append(".env.example does not name GRAFANA_ADMIN_PASSWORD")

if problems:
    sys.exit("the monitoring profile:\n  " + "\n  ".join(problems))
print("compose monitoring profile: prometheus and grafana only under --profile monitoring, images pinned, mounts present, "
      "Grafana's password from .env and required, ports on loopback only")
