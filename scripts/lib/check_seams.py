#!/usr/bin/env python3
"""The seams the compiler does not check, checked before the tests (scripts/test):

- every target declares exactly the modules its Swift imports (`swift package dump-package` against the `import` lines):
  an undeclared import builds only while another target happens to pull the module in; an unused dependency is a
  coupling nobody can see;
- a feature's tables are its own: every table a migration creates has one owning module, and no other module's Swift
  names it outside comments (another module asks through the owner's typed API); likewise the change feed's channel:
  only Scheduling's ChangeFeed writes or listens (`pg_notify`, `LISTEN`, `NOTIFY`, the channel's name) — a feature
  announces a ChangeTopic through it;
- each fuzz target imports exactly what its target.conf declares;
- the README stays short enough to read in two minutes (at most 10,000 bytes).

Usage: check_seams.py PACKAGE_JSON (the output of `swift package dump-package`), from the repository's root.
Prints what is wrong and exits 1, or prints one line and exits 0.
"""
import json
import os
import re
import sys

# Modules of the toolchain and of Apple's SDKs (the Swift client's App Attest code imports those under #if canImport).
SYSTEM = {
    "Foundation", "FoundationEssentials", "FoundationNetworking", "Glibc", "Musl", "Darwin", "Dispatch", "Synchronization",
    "XCTest", "Testing", "_Concurrency", "PackagePlugin", "os", "CryptoKit", "DeviceCheck", "Security",
}
# A test target may declare an executable it runs without importing it: SwiftPM builds it for the tests.
RUNS_EXECUTABLE = {("PierTests", "Pier")}
README_LIMIT = 10_000

# Who owns each table the migrations create. A new migration's table needs a line here.
OWNERS = {
    "Alplakes": ["alplakes_lakes"],
    "AppAttest": ["app_attest_debug_tokens", "app_attest_devices", "app_attest_registrations", "app_attest_spent_challenges"],
    "Limits": ["daily_counts", "upstream_quota", "upstream_share"],
    "Scheduling": ["fetch_runs", "pier_row_notices"],
    "Backups": ["backup_runs"],
    "Lakes": ["lake_levels", "lake_readings"],
    "LakeWeather": ["lake_weather_forecasts"],
    "METNorway": ["metno_forecasts"],
    "NextWave": ["nextwave_badges", "nextwave_checkins", "nextwave_devices", "nextwave_history", "nextwave_profiles",
                 "nextwave_refresh_tokens", "nextwave_sessions", "nextwave_users", "nextwave_verified_sessions"],
    "NSWDepartures": ["nsw_departures"],
    "PromoTiles": ["promo_tile_sets"],
    "Push": ["push_devices", "push_outbox", "push_payloads"],
    "Ships": ["ship_days", "ship_deployments"],
    "Stationboard": ["stationboard_answers"],
    "SharedAnswers": ["upstream_answers"],
    "WarningPush": ["warning_notified", "warning_push_roots", "warning_subscriptions"],
    "Weather": ["weather_forecast_cells", "weather_forecast_points", "weather_observations", "weather_places", "weather_stations"],
    "Warnings": ["weather_warnings"],
}
# The change feed's channel and the SQL that writes or hears it: Scheduling's alone (ChangeFeed).
CHANNEL_OWNER = "Scheduling"
CHANNEL_SQL = re.compile(r"\bpg_notify\b|\bpier_data_changed\b|\bLISTEN\s|\bNOTIFY\s")
# Pairs not moved yet: each line here is a debt (none left).
NOT_YET: set = set()
CREATED = re.compile(r"(?i)\bCREATE\s+(?:UNLOGGED\s+)?(?:TABLE|MATERIALIZED\s+VIEW|VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?([a-z_][a-z0-9_]*)")
COMMENT = re.compile(r"//.*")


def table_problems():
    owner = {table: module for module, tables in OWNERS.items() for table in tables}
    created = set()
    for name in sorted(os.listdir("Migrations")):
        if name.endswith(".sql"):
            created.update(match.lower() for match in CREATED.findall(open(os.path.join("Migrations", name)).read()))
    problems = [f"Migrations create {table}, which no module owns (scripts/lib/check_seams.py OWNERS)" for table in sorted(created - owner.keys())]
    named = re.compile(r"\b(" + "|".join(sorted(created, key=len, reverse=True)) + r")\b")
    debts = set()
    for folder, _, names in os.walk("Sources"):
        module = folder.split("/")[1] if folder.count("/") else None
        if module is None or "/Testing" in folder:
            continue
        for name in names:
            if not name.endswith(".swift"):
                continue
            path = os.path.join(folder, name)
            for number, line in enumerate(open(path, encoding="utf-8"), 1):
                code = COMMENT.sub("", line)
                if module != CHANNEL_OWNER and CHANNEL_SQL.search(code):
                    problems.append(f"{path}:{number}: {module} writes or hears the change feed's channel (announce a ChangeTopic)")
                for table in set(named.findall(code)):
                    if owner.get(table) in (module, None):
                        continue
                    if (module, table) in NOT_YET:
                        debts.add((module, table))
                        continue
                    problems.append(f"{path}:{number}: {module} names {owner[table]}'s table {table} (ask through its API)")
    for module, table in sorted(NOT_YET - debts):
        problems.append(f"{module} no longer names {table}: drop the pair from NOT_YET in scripts/lib/check_seams.py")
    return problems, len(created), debts

IMPORT = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|internal|package|private|fileprivate)\s+)?import\s+"
    r"(?:(?:struct|class|enum|protocol|typealias|func|let|var)\s+)?([A-Za-z_][A-Za-z0-9_]*)")


def swift_files(target):
    kind = target["type"]
    root = target.get("path") or (("Tests/" if kind == "test" else "Sources/") + target["name"])
    excluded = [os.path.join(root, entry) for entry in target.get("exclude", [])]
    listed = [os.path.join(root, entry) for entry in target["sources"]] if target.get("sources") else [root]
    for entry in listed:
        if os.path.isfile(entry):
            yield entry
            continue
        for folder, _, names in os.walk(entry):
            if any(folder == gone or folder.startswith(gone + "/") for gone in excluded):
                continue
            yield from (os.path.join(folder, name) for name in names if name.endswith(".swift"))


def declared(target):
    names = set()
    for dependency in target["dependencies"]:
        (value,) = dependency.values()
        names.add(value[0] if isinstance(value, list) else value)
    return names


def fuzz_target_problems():
    """Each fuzz target (fuzz/targets/<name>, built only with PIER_FUZZ, so absent from the package's dump) imports exactly
    the modules its target.conf declares: a stale import links whatever a previous build left in .build-fuzz."""
    problems = []
    for name in sorted(os.listdir("fuzz/targets")):
        folder = os.path.join("fuzz/targets", name)
        conf = os.path.join(folder, "target.conf")
        if not os.path.isfile(conf):
            continue
        lines = open(conf).read().splitlines()
        needed = {module for line in lines if line.startswith("dependencies=") for module in line[len("dependencies="):].split()}
        imported = set()
        for source in (os.path.join(folder, entry) for entry in os.listdir(folder) if entry.endswith(".swift")):
            with open(source, encoding="utf-8") as text:
                imported.update(match.group(1) for match in map(IMPORT.match, text) if match)
        imported -= SYSTEM
        problems += [f"fuzz-{name} imports {module} without declaring it in {conf}" for module in sorted(imported - needed)]
        problems += [f"fuzz-{name} declares {module} in {conf} and never imports it" for module in sorted(needed - imported)]
    return problems


def main():
    package = json.load(open(sys.argv[1]))
    problems = []
    for target in package["targets"]:
        if target["type"] in ("system", "plugin", "macro", "binary"):
            continue
        imported = set()
        for path in swift_files(target):
            with open(path, encoding="utf-8") as source:
                imported.update(match.group(1) for match in map(IMPORT.match, source) if match)
        imported -= SYSTEM
        needed = declared(target) - {module for runner, module in RUNS_EXECUTABLE if runner == target["name"]}
        for module in sorted(imported - needed):
            problems.append(f"{target['name']} imports {module} without declaring it in Package.swift")
        for module in sorted(needed - imported):
            problems.append(f"{target['name']} declares {module} and never imports it")
    problems += fuzz_target_problems()
    tables, table_count, debts = table_problems()
    problems += tables
    size = os.path.getsize("README.md")
    if size > README_LIMIT:
        problems.append(f"README.md is {size:,} bytes: at most {README_LIMIT:,} (move detail to docs/)")
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    owed = "".join(f"; still owed: {module} names {table}" for module, table in sorted(debts))
    print(f"seams: {len(package['targets'])} targets declare exactly what they import; {table_count} tables, each named only by"
          f" its owner{owed}; the change feed's channel only by {CHANNEL_OWNER}; README.md {size:,} bytes")


main()
