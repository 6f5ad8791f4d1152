#!/usr/bin/env python3
"""Every dashboard query and alert rule against a real Prometheus that scrapes a real Pier (scripts/lib/monitoring_checks.sh).

- each panel's query, Grafana's variables set to "All", must return at least one series;
- each variable's label_values(...) must return values;
- every metric name a query or rule names must be one Prometheus has scraped (so a typo in an `or` branch, or in a
  rule that is silent by design, fails too);
- Prometheus must have loaded every rule of the repository's file and evaluated each without error.

Usage: check_dashboards.py PROMETHEUS_URL DASHBOARD_DIR RULES_FILE
"""
import glob
import json
import re
import sys
import urllib.parse
import urllib.request

import yaml  # PyYAML: the rule file as Prometheus reads it

# Grafana's own variables and Pier's, as a dashboard opened with "All" sends them.
SUBSTITUTIONS = {"$__rate_interval": "1m", "$__interval": "15s", "$__range": "1h", "$instance": ".*", "$upstream": ".*",
                 "${instance}": ".*", "${upstream}": ".*"}
NAME = re.compile(r"\b((?:pier|http|process|websocket)_[a-z0-9_]+|up)\b(?!\s*\()")


def get(base, path, **params):
    url = base + path + ("?" + urllib.parse.urlencode(params, doseq=True) if params else "")
    with urllib.request.urlopen(url, timeout=10) as answer:
        body = json.load(answer)
    if body.get("status") != "success":
        raise RuntimeError(f"{path}: {body}")
    return body["data"]


def expand(expr):
    for name, value in SUBSTITUTIONS.items():
        expr = expr.replace(name, value)
    return expr


def names_in(expr):
    # Label names and values are inside braces or quotes; metric names are outside. Strip strings and label sets.
    bare = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)
    bare = re.sub(r"\{[^}]*\}", "", bare)
    bare = re.sub(r"\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)", "", bare)
    return {match for match in NAME.findall(bare)}


def panels(board):
    for panel in board.get("panels", []):
        yield panel
        yield from panel.get("panels", [])


def main():
    base, dashboards, rules_file = sys.argv[1:4]
    known = set(get(base, "/api/v1/label/__name__/values"))
    failures, queries = [], 0
    for path in sorted(glob.glob(dashboards + "/*.json")):
        board = json.load(open(path, encoding="utf-8"))
        for variable in board.get("templating", {}).get("list", []):
            match = re.fullmatch(r"label_values\((.+),\s*(\w+)\)", variable["definition"])
            if not match:
                failures.append(f"{board['title']}: variable {variable['name']} is not label_values(selector, label)")
                continue
            selector, label = match.groups()
            if not get(base, f"/api/v1/label/{label}/values", **{"match[]": selector}):
                failures.append(f"{board['title']}: variable {variable['name']} ({variable['definition']}) has no values")
            failures += [f"{board['title']}: variable {variable['name']} names {name}, which Pier does not expose"
                         for name in names_in(selector) - known]
        for panel in panels(board):
            for target in panel.get("targets", []):
                expr = expand(target["expr"])
                queries += 1
                where = f"{board['title']} / {panel['title']} ({target['refId']})"
                unknown = names_in(expr) - known
                if unknown:
                    failures.append(f"{where}: names {', '.join(sorted(unknown))}, which Pier does not expose")
                try:
                    result = get(base, "/api/v1/query", query=expr)["result"]
                except Exception as error:  # an invalid query: Prometheus's own message
                    failures.append(f"{where}: {error}")
                    continue
                if not result:
                    failures.append(f"{where}: no series for {expr}")
    rules = [rule for group in yaml.safe_load(open(rules_file))["groups"] for rule in group["rules"]]
    for rule in rules:
        unknown = names_in(rule["expr"]) - known
        if unknown:
            failures.append(f"alert {rule['alert']}: names {', '.join(sorted(unknown))}, which Pier does not expose")
    loaded = {rule["name"]: rule for group in get(base, "/api/v1/rules")["groups"] for rule in group["rules"]}
    for rule in rules:
        state = loaded.get(rule["alert"])
        if state is None:
            failures.append(f"alert {rule['alert']}: not loaded by Prometheus")
        elif state.get("health") != "ok":
            failures.append(f"alert {rule['alert']}: {state.get('health')} {state.get('lastError', '')}")
    if failures:
        sys.exit("dashboards and alerts against a real Prometheus scraping Pier:\n  " + "\n  ".join(failures))
    print(f"monitoring: {queries} panel queries each returned series; {len(rules)} alert rules loaded and evaluated; "
          f"every metric they name is exposed by Pier ({len(known)} names scraped)")


if __name__ == "__main__":
    main()
