#!/usr/bin/env python3
"""Pier's Grafana dashboards, written as JSON into dashboards/ (what Grafana provisions).

The JSON is generated so that every panel is one line here: a title, what it tells the operator, its queries. Edit
this file, run it (`python3 deploy/monitoring/grafana/dashboards.py`), commit both; scripts/test fails when the
committed JSON is not what this writes, and evaluates every query against a real Prometheus scraping a real Pier
(scripts/lib/check_dashboards.py): a metric name that Pier does not expose fails the run.

Variables: `$instance` (a replica, or all) everywhere; `$upstream` on the upstreams' dashboard.
"""
import json
import os
import sys

DATASOURCE = {"type": "prometheus", "uid": "prometheus"}
RATE = "$__rate_interval"
HERE = os.path.dirname(os.path.abspath(__file__))


class Board:
    def __init__(self, uid, title, description, variables=("instance",)):
        self.uid, self.title, self.description = uid, title, description
        self.variables = variables
        self.panels = []
        self.x = 0
        self.y = 0
        self.row_height = 0
        self.next_id = 1

    def row(self, title):
        self._newline()
        self.panels.append({"type": "row", "title": title, "id": self._id(), "collapsed": False, "panels": [],
                            "gridPos": {"h": 1, "w": 24, "x": 0, "y": self.y}})
        self.y += 1

    def panel(self, kind, title, description, targets, unit="short", width=12, height=8, **extra):
        if self.x + width > 24:
            self._newline()
        panel = {
            "type": kind, "title": title, "description": description, "id": self._id(), "datasource": DATASOURCE,
            "gridPos": {"h": height, "w": width, "x": self.x, "y": self.y},
            "targets": [dict(refId=chr(ord("A") + i), datasource=DATASOURCE, expr=expr, legendFormat=legend,
                             **({"instant": True} if kind in ("stat", "bargauge", "table") else {}))
                        for i, (expr, legend) in enumerate(targets)],
            "fieldConfig": {"defaults": {"unit": unit, **extra.pop("defaults", {})}, "overrides": extra.pop("overrides", [])},
            "options": extra.pop("options", {}),
        }
        if kind == "timeseries":
            panel["fieldConfig"]["defaults"].setdefault("custom", {"lineWidth": 1, "fillOpacity": 10, "showPoints": "never"})
            panel["options"].setdefault("legend", {"displayMode": "table", "placement": "right", "calcs": ["lastNotNull", "max"]})
            panel["options"].setdefault("tooltip", {"mode": "multi", "sort": "desc"})
        panel.update(extra)
        self.panels.append(panel)
        self.x += width
        self.row_height = max(self.row_height, height)

    def _newline(self):
        if self.x:
            self.y += self.row_height
        self.x, self.row_height = 0, 0

    def _id(self):
        self.next_id += 1
        return self.next_id - 1

    def json(self):
        variables = {
            "instance": {"name": "instance", "label": "Replica", "type": "query", "datasource": DATASOURCE,
                         "query": {"query": 'label_values(up{job="pier"}, instance)', "refId": "instance"},
                         "definition": 'label_values(up{job="pier"}, instance)',
                         "includeAll": True, "allValue": ".*", "multi": True, "refresh": 2, "sort": 1,
                         "current": {"text": "All", "value": "$__all"}},
            "upstream": {"name": "upstream", "label": "Upstream", "type": "query", "datasource": DATASOURCE,
                         "query": {"query": "label_values(pier_upstream_requests_total, upstream)", "refId": "upstream"},
                         "definition": "label_values(pier_upstream_requests_total, upstream)",
                         "includeAll": True, "allValue": ".*", "multi": True, "refresh": 2, "sort": 1,
                         "current": {"text": "All", "value": "$__all"}},
        }
        return {
            "uid": self.uid, "title": self.title, "description": self.description, "tags": ["pier"],
            "editable": True, "graphTooltip": 1, "schemaVersion": 39, "version": 1, "refresh": "30s",
            "time": {"from": "now-6h", "to": "now"}, "timezone": "",
            "links": [{"type": "dashboards", "tags": ["pier"], "asDropdown": True, "title": "Pier", "includeVars": True, "keepTime": True}],
            "templating": {"list": [variables[name] for name in self.variables]},
            "annotations": {"list": []},
            "panels": self.panels,
        }


I = 'instance=~"$instance"'
U = 'upstream=~"$upstream"'
def rate(metric, by="", *filters):
    """`sum by (<by>) (rate(<metric>{instance=~"$instance",<filters>}[$__rate_interval]))`: a counter a second."""
    selector = ",".join((I,) + filters)
    return f"sum{f' by ({by}) ' if by else ''}(rate({metric}{{{selector}}}[{RATE}]))"


def share_gauge(board, title, description, expr, legend, steps):
    """A horizontal bar per series of a 0–1 share, coloured by `steps` ([(colour, from), …], the first from nothing)."""
    board.panel("bargauge", title, description, [(expr, legend)], unit="percentunit",
                defaults={"min": 0, "max": 1, "thresholds": {"mode": "absolute", "steps": [{"color": colour, "value": start} for colour, start in steps]}},
                options={"orientation": "horizontal", "displayMode": "gradient"})


STATES = {"mappings": [{"type": "value", "options": {"0": {"text": "no", "color": "red"}, "1": {"text": "yes", "color": "green"}}}]}


def service():
    b = Board("pier-service", "Pier — service",
              "Is Pier answering, how fast, and is anything it depends on (PostgreSQL, the fetching replica, memory) in trouble.")
    b.row("At a glance")
    b.panel("stat", "Replicas up", "Replicas Prometheus scrapes that answer (up == 1) out of those it knows.",
            [('sum(up{job="pier"})', "up"), ('count(up{job="pier"})', "known")], width=4, height=5)
    b.panel("stat", "Fetching replicas", "Replicas holding the fetch lock: exactly 1 is right (0: nothing is fetched; 2: upstreams asked twice).",
            [('sum(pier_fetch_leader{job="pier"})', "leaders")], width=4, height=5,
            defaults={"thresholds": {"mode": "absolute", "steps": [{"color": "red", "value": None}, {"color": "green", "value": 1}, {"color": "red", "value": 2}]}})
    b.panel("stat", "PostgreSQL reachable", "Every replica's last pings (0 on any replica: /health answers 503 there).",
            [(f'min(pier_postgres_up{{{I}}})', "reachable")], width=4, height=5, defaults=STATES)
    b.panel("stat", "Answers 5xx", "Share of answers with a 5xx status over the last 5 minutes (/health left out).",
            [(f'sum(rate(http_requests_total{{{I},status=~"5..",route!~"/health.*"}}[5m])) / sum(rate(http_requests_total{{{I},route!~"/health.*"}}[5m]))', "5xx")],
            unit="percentunit", width=4, height=5)
    b.panel("stat", "Sources stale", "Scheduled sources whose data /health calls stale (older than their threshold; on-demand ones age whenever nobody asks).",
            [('count(max by (source) (pier_source_state{fetched="scheduled",state="stale"}) == 1) or vector(0)', "stale")], width=4, height=5)
    b.panel("stat", "Versions", "Running versions and how many replicas run each.",
            [("count by (version) (pier_build_info)", "{{version}}")], width=4, height=5)
    b.row("Requests")
    b.panel("timeseries", "Requests by route", "Answers a second per route (all statuses).",
            [(rate("http_requests_total", "route"), "{{route}}")], unit="reqps")
    b.panel("timeseries", "Requests by status", "Answers a second per status code.",
            [(rate("http_requests_total", "status"), "{{status}}")], unit="reqps")
    b.panel("timeseries", "p50 latency by route", "Median time from the request's last byte to the answer, per route.",
            [(f"histogram_quantile(0.5, sum by (route, le) (rate(http_request_duration_seconds_bucket{{{I}}}[{RATE}])))", "{{route}}")], unit="s")
    b.panel("timeseries", "p99 latency by route", "99th percentile per route: what the slowest of a hundred waits.",
            [(f"histogram_quantile(0.99, sum by (route, le) (rate(http_request_duration_seconds_bucket{{{I}}}[{RATE}])))", "{{route}}")], unit="s")
    b.panel("timeseries", "Open connections", "Client connections open per replica, and those refused at PIER_MAX_CONNECTIONS.",
            [(f"sum by (instance) (http_open_connections{{{I}}})", "{{instance}} open"),
             (rate("http_refused_connections_total", "instance"), "{{instance}} refused/s")])
    b.panel("timeseries", "Cached responses", "Ships and lakes served ready-encoded from memory: hits and rebuilds a second.",
            [(rate("pier_cache_requests_total", "cache, result"), "{{cache}} {{result}}")], unit="reqps")
    b.panel("timeseries", "WebSockets", "Open WebSockets (live check-ins) and the Realtime channels joined on them, per replica; messages a "
            "second each way (heartbeats in, events out). websocket_closes_total{code} says why sockets end (1008: a slow reader or a flood).",
            [(f"sum by (instance) (websocket_open_sockets{{{I}}})", "{{instance}} sockets"),
             (f"sum by (instance) (pier_realtime_channels{{{I}}})", "{{instance}} channels"),
             (rate("websocket_messages_total", "direction"), "messages {{direction}}/s")])
    b.panel("timeseries", "Live check-ins", "Check-in changes fanned out (after coalescing) and postgres_changes messages delivered a second, "
            "per replica; joins refused (a bad token, an unpublished table, presence or broadcast).",
            [(rate("pier_realtime_events_total", "instance"), "{{instance}} events/s"),
             (rate("pier_realtime_deliveries_total", "instance"), "{{instance}} deliveries/s"),
             (rate("pier_realtime_joins_total", "instance", 'result="refused"'), "{{instance}} joins refused/s")])
    b.row("Process and PostgreSQL")
    b.panel("timeseries", "Memory", "Resident memory per replica: it should level off within hours (the caches have budgets).",
            [(f'process_resident_memory_bytes{{job="pier",{I}}}', "{{instance}}")], unit="bytes", width=8)
    b.panel("timeseries", "CPU", "CPU time per replica (1 = one core busy).",
            [(f'rate(process_cpu_seconds_total{{job="pier",{I}}}[{RATE}])', "{{instance}}")], unit="short", width=8)
    b.panel("timeseries", "File descriptors", "Open descriptors against the limit (each connection is one).",
            [(f'process_open_fds{{job="pier",{I}}}', "{{instance}} open"), (f'process_max_fds{{job="pier",{I}}}', "{{instance}} limit")], width=8)
    b.panel("timeseries", "PostgreSQL pool", "The pool's connections in use and idle, its limit (PIER_DB_POOL_SIZE) and callers waiting for one.",
            [(f"sum by (state) (pier_postgres_connections{{{I}}})", "{{state}}"), (f"sum(pier_postgres_connections_max{{{I}}})", "limit"),
             (f"sum(pier_postgres_waiting{{{I}}})", "waiting")])
    b.panel("timeseries", "PostgreSQL reachable", "1 while a replica's pings answer, 0 while /health says unreachable.",
            [(f"pier_postgres_up{{{I}}}", "{{instance}}")], defaults={"min": 0, "max": 1})
    b.panel("stat", "Backups", "When the last full and differential backups ended and PostgreSQL last archived WAL (1970 when never: "
            "a development cluster). Alerts: PierBackupMissing, PierFullBackupMissing, PierWALArchivingFailing (docs/operations/runbooks.md).",
            [(f"max(pier_backup_last_success_timestamp_seconds{{{I},type=\"full\"}}) * 1000", "full backup"),
             (f"max(pier_backup_last_success_timestamp_seconds{{{I},type=\"differential\"}}) * 1000", "differential"),
             (f"max(pier_wal_last_archived_timestamp_seconds{{{I}}}) * 1000", "WAL archived")], unit="dateTimeFromNow", width=24, height=5)
    return b


def upstreams():
    b = Board("pier-upstreams", "Pier — upstreams",
              "Each upstream: what Pier asks of it, what it refuses to ask and why, the day's quota against its reserve, "
              "and how fresh the data is against the threshold /health uses.", variables=("instance", "upstream"))
    b.row("Calls")
    b.panel("timeseries", "Calls", "Requests made to each upstream a second (all replicas).",
            [(rate("pier_upstream_requests_total", "upstream", U), "{{upstream}}")], unit="reqps")
    b.panel("timeseries", "Failures", "Calls that failed, were throttled or refused by the upstream, a second.",
            [(rate("pier_upstream_failures_total", "upstream", U), "{{upstream}}")], unit="reqps")
    b.panel("timeseries", "Refusals by reason", "Requests Pier did not send, by reason: budget, client_share, paused, concurrency, daily_quota, reserve, daily_share, quota_unknown.",
            [(rate("pier_upstream_refusals_total", "upstream, reason", U), "{{upstream}} {{reason}}")], unit="reqps")
    b.panel("timeseries", "Budget left", "Requests each upstream's budget allows at once now, per replica (0: callers wait or are refused).",
            [(f"min by (upstream) (pier_upstream_budget_tokens{{{I},{U}}})", "{{upstream}}")])
    b.row("Daily quotas")
    b.panel("timeseries", "Quota used today", "The day's count (all replicas) against the limit; past `reserve starts` only answers more than one client asked for are fetched.",
            [(f"max by (upstream) (pier_upstream_quota_used{{{I},{U}}})", "{{upstream}} used"),
             (f"max by (upstream) (pier_upstream_quota_limit{{{I},{U}}})", "{{upstream}} limit"),
             (f"max by (upstream) (pier_upstream_quota_limit{{{I},{U}}} - pier_upstream_quota_reserve{{{I},{U}}})", "{{upstream}} reserve starts")])
    share_gauge(b, "Quota left today", "What is left of each upstream's day, as a share of its limit (red: into the reserve).",
                f"max by (upstream) (pier_upstream_quota_left{{{I},{U}}}) / max by (upstream) (pier_upstream_quota_limit{{{I},{U}}})", "{{upstream}}",
                [("red", None), ("orange", 0.3), ("green", 0.5)])
    b.panel("bargauge", "Hours until each upstream's day ends", "Its own midnight (Sydney's for TfNSW, UTC for the others).",
            [(f"(max by (upstream) (pier_upstream_quota_resets_timestamp_seconds{{{I},{U}}}) - time()) / 3600", "{{upstream}}")],
            unit="h", options={"orientation": "horizontal", "displayMode": "basic"})
    b.row("Freshness and stale answers")
    share_gauge(b, "Data age against the stale threshold", "Each source's age as a share of the age at which /health calls it stale (1 = stale).",
                f"max by (source) (pier_source_age_seconds{{{I}}}) / max by (source) (pier_source_stale_after_seconds{{{I}}})", "{{source}}",
                [("green", None), ("orange", 0.7), ("red", 1)])
    b.panel("table", "Source states", "Each source as /health states it: ok, stale, failing (last run failed, data still fresh), idle (on demand, not asked yet), disabled (no key).",
            [(f"max by (source, fetched, state) (pier_source_state{{{I}}}) == 1", "")],
            options={"showHeader": True}, transformations=[{"id": "labelsToFields", "options": {}},
                                                           {"id": "organize", "options": {"excludeByName": {"Time": True, "Value": True}}}])
    b.panel("timeseries", "Stale answers by kind", "Answers served stale (marked X-Pier-Stale) because the upstream failed or could not be asked.",
            [(rate("pier_ondemand_stale_total", "kind", U), "{{kind}}")], unit="reqps")
    b.panel("timeseries", "Nothing to serve by kind", "Requests answered 503 or 429 with nothing to serve.",
            [(rate("pier_ondemand_unavailable_total", "kind", U), "{{kind}}")], unit="reqps")
    b.panel("timeseries", "Memory hit ratio by kind", "Share of requests answered from memory (the rest read PostgreSQL or ask the upstream).",
            [(f"sum by (kind) (rate(pier_ondemand_cache_hits_total{{{I},{U}}}[{RATE}])) / (sum by (kind) (rate(pier_ondemand_cache_hits_total{{{I},{U}}}[{RATE}])) + sum by (kind) (rate(pier_ondemand_cache_misses_total{{{I},{U}}}[{RATE}])))", "{{kind}}")],
            unit="percentunit")
    b.panel("timeseries", "Weather answers by provenance", "Where /v1/weather's answers came from: own cell, stale, a neighbour, MET Norway, none.",
            [(rate("pier_weather_answers_total", "provenance"), "{{provenance}}")], unit="reqps")
    b.panel("timeseries", "Fetch runs by outcome", "The scheduled fetches' runs in the last hour by source and outcome (ok, suspect, failed).",
            [(f"sum by (source, outcome) (increase(pier_fetch_runs_total{{{I}}}[1h]))", "{{source}} {{outcome}}")])
    b.row("Cruise import (Gemini)")
    b.panel("timeseries", "Cruise imports by outcome", "ShipTrip's imports in the last hour: imported, no_cruise, declined, invalid_answer (Gemini's answer "
            "failed Pier's checks: a rising share means the model changed), refused (a client's share, a missing App Attest token), unavailable, "
            "bad_request, not_configured.",
            [(f"sum by (outcome) (increase(pier_cruise_imports_total{{{I}}}[1h]))", "{{outcome}}")], width=8)
    b.panel("timeseries", "Gemini tokens", "Tokens spent by imports in the last hour (the prompt with the pasted text, the model's answer): what the bill follows.",
            [(f"sum by (kind) (increase(pier_gemini_tokens_total{{{I}}}[1h]))", "{{kind}}")], width=8)
    b.panel("stat", "Imports left today", "What is left of PIER_GEMINI_REQUESTS_PER_DAY (all replicas; Google's day ends at midnight Pacific time).",
            [(f'max(pier_upstream_quota_left{{{I},upstream="gemini"}})', "left"), (f'max(pier_upstream_quota_limit{{{I},upstream="gemini"}})', "per day")],
            width=8)
    return b


def fair_shares():
    b = Board("pier-fair-shares", "Pier — fair shares",
              "Who is refused for spending more than their share, by the size of the group whose share ran out, and the top reasons.")
    b.panel("timeseries", "Refusals by group size", "Client-share, concurrency and daily-share refusals by the group that spent its share: one address (ipv4/32, ipv6/64), a network (ipv4/24, ipv6/56, ipv6/48), an App Attest device, a debug device, anonymous.",
            [(f'sum by (group) (rate(pier_upstream_refusals_total{{{I},group!=""}}[{RATE}]))', "{{group}}")], unit="reqps")
    b.panel("bargauge", "Top refusal reasons (last hour)", "The five upstream and reason pairs that refused most in the last hour.",
            [(f"topk(5, sum by (upstream, reason) (increase(pier_upstream_refusals_total{{{I}}}[1h])))", "{{upstream}} {{reason}}")],
            options={"orientation": "horizontal", "displayMode": "basic"})
    b.panel("timeseries", "Refusals by reason", "Every upstream's refusals a second, by reason.",
            [(rate("pier_upstream_refusals_total", "reason"), "{{reason}}")], unit="reqps")
    b.panel("timeseries", "Registrations refused", "App Attest verifications refused before any work (by whose share was spent) and push registrations refused (credential, share, the network's day).",
            [(rate("pier_app_attest_verifications_refused_total", "share"), "app attest {{share}}"),
             (rate("pier_push_registrations_refused_total", "reason"), "push {{reason}}")], unit="reqps")
    b.panel("timeseries", "Next Wave community refused", "Anonymous sign-ups refused before anything was stored (credential, share, the network's day), check-ins, names, device tokens, verified sessions and refreshes refused for their cost, reads that would reach PostgreSQL refused for theirs, and writes past a bound on what one rider holds (PIER_NEXTWAVE_*).",
            [(rate("pier_nextwave_signups_refused_total", "reason"), "sign-ups {{reason}}"),
             (rate("pier_nextwave_writes_refused_total"), "writes"),
             (rate("pier_nextwave_reads_refused_total"), "reads"),
             (rate("pier_nextwave_bounds_refused_total", "bound"), "bound {{bound}}")], unit="reqps")
    return b


def app_attest():
    b = Board("pier-app-attest", "Pier — App Attest",
              "What share of the requests that would spend an upstream's budget carries a genuine device's token — read before moving PIER_APP_ATTEST from monitor to prefer to require.")
    spending = f"pier_app_attest_spending_requests_total{{{I}}}"
    b.panel("timeseries", "Spending requests by token", "Share of spending requests by the token they showed: verified, debug, missing, expired, forged, revoked.",
            [(f"sum by (state) (rate({spending}[{RATE}])) / ignoring(state) group_left sum(rate({spending}[{RATE}]))", "{{state}}")],
            unit="percentunit", defaults={"min": 0, "max": 1})
    b.panel("stat", "Verified share (last hour)", "Of the requests that would spend in the last hour, the share with a verified device token: what `require` would let through.",
            [(f'sum(increase({spending[:-1]},state=~"verified|debug"}}[1h])) / sum(increase({spending}[1h]))', "verified")],
            unit="percentunit", width=6)
    b.panel("stat", "Refused for want of a token (last hour)", "Requests refused 401 under prefer or require.",
            [(f"sum(increase(pier_app_attest_spending_refused_total{{{I}}}[1h]))", "refused")], width=6)
    b.panel("timeseries", "Attestations by result", "Device registrations: accepted, or the first check that failed.",
            [(rate("pier_app_attest_attestations_total", "result"), "{{result}}")], unit="reqps")
    b.panel("timeseries", "Assertions by result", "Token exchanges: accepted, or the first check that failed.",
            [(rate("pier_app_attest_assertions_total", "result"), "{{result}}")], unit="reqps")
    b.panel("timeseries", "Tokens issued and debug exchanges", "Tokens issued a second, and debug-token exchanges by result.",
            [(rate("pier_app_attest_tokens_issued_total"), "tokens"),
             (rate("pier_app_attest_debug_exchanges_total", "result"), "debug {{result}}")], unit="reqps")
    return b


def push():
    b = Board("pier-push", "Pier — warnings and push",
              "FMI's warnings in force and how they reach devices: the notifier's look, the outbox, APNs' answers.")
    b.panel("stat", "Warnings in force", "Warnings FMI has in force now (the set held in memory).",
            [(f"max(pier_warnings_in_force{{{I}}})", "in force")], width=6, height=5)
    b.panel("stat", "Devices", "Devices registered for pushes.",
            [(f"max(pier_push_devices{{{I}}})", "devices")], width=6, height=5)
    b.panel("stat", "Outbox pending", "Pushes waiting to go.",
            [(f"max(pier_push_outbox_pending{{{I}}})", "pending")], width=6, height=5)
    b.panel("stat", "Oldest pending", "How long the oldest waiting push has waited (alert past 15 minutes).",
            [(f"max(pier_push_outbox_oldest_pending_seconds{{{I}}})", "oldest")], unit="s", width=6, height=5)
    b.panel("timeseries", "Pushes by result", "APNs' answers a second: delivered, retried, rejected (with Apple's reason), failed.",
            [(rate("pier_push_total", "result, reason"), "{{result}} {{reason}}")], unit="reqps")
    b.panel("timeseries", "Outbox", "Pushes pending and the oldest one's wait.",
            [(f"max(pier_push_outbox_pending{{{I}}})", "pending"), (f"max(pier_push_outbox_oldest_pending_seconds{{{I}}})", "oldest (s)")])
    b.panel("timeseries", "Notifier", "The notifier's last look (fan-out query and enqueue, seconds) and pushes it enqueued a second.",
            [(f"max(pier_warning_push_look_seconds{{{I}}})", "look (s)"),
             (rate("pier_warning_push_enqueued_total"), "enqueued/s")])
    b.panel("timeseries", "Devices removed", "Devices deleted because APNs said their token is gone (410, BadDeviceToken).",
            [(f"sum(increase(pier_push_devices_removed_total{{{I}}}[1h]))", "removed in the last hour")])
    b.panel("timeseries", "Warning lookups", "Points' warnings looked up in memory (or PostGIS before the set first loaded), and CAP documents read.",
            [(rate("pier_warnings_lookups_total", "from"), "lookup {{from}}"),
             (rate("pier_warnings_documents_total", "result"), "documents {{result}}")], unit="reqps")
    return b


BOARDS = [service, upstreams, fair_shares, app_attest, push]


def render():
    return {f"{board.uid}.json": json.dumps(board.json(), indent=2, ensure_ascii=False) + "\n" for board in (make() for make in BOARDS)}


if __name__ == "__main__":
    folder = os.path.join(HERE, "dashboards")
    files = render()
    if sys.argv[1:] == ["--check"]:
        stale = [name for name, text in files.items()
                 if not os.path.exists(os.path.join(folder, name)) or open(os.path.join(folder, name), encoding="utf-8").read() != text]
        extra = sorted(set(os.listdir(folder)) - set(files)) if os.path.isdir(folder) else []
        if stale or extra:
            sys.exit(f"deploy/monitoring/grafana/dashboards/ is not what dashboards.py writes: {', '.join(stale + extra)} (run it and commit)")
        sys.exit(0)
    os.makedirs(folder, exist_ok=True)
    for name, text in files.items():
        with open(os.path.join(folder, name), "w", encoding="utf-8") as out:
            out.write(text)
