#!/usr/bin/env python3
"""The seams the compiler does not check, checked before the tests (scripts/test):

- every target declares exactly the modules its Swift imports (`swift package dump-package` against the `import` lines):
  an undeclared import builds only while another target happens to pull the module in; an unused dependency is a
  coupling nobody can see;
- a feature's tables are its own: a module's migrations live in its folder, Migrations/<Module>/, and what they create
  (tables, functions) is its own; no other module's Swift names it outside comments (another module asks through the
  owner's typed API), and no other folder's SQL names its tables or redefines its functions (a trigger, a key, a
  statement on another module's table fails; calling a function the owner offers is how it is asked); the frozen
  migrations from before the folders are listed with what they create; likewise the change feed's channel:
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

# A module's migrations live in its folder, Migrations/<Module>/: what a folder's files create — tables, views, functions —
# is that module's. The files below came before the folders and change more than one module's schema; they are frozen
# (a new migration goes in its module's folder, and a new file at the top fails this check), so the owners of what they
# create are written here, once, for them alone.
BEFORE_FOLDERS = {
    "0001_initial.sql": {"Scheduling": ["fetch_runs"], "Ships": ["ship_days", "ship_deployments"], "Lakes": ["lake_readings"],
                         "Weather": ["weather_stations", "weather_observations", "weather_forecast_cells", "weather_forecast_points"]},
    "0018_one_answer_store.sql": {},
    "0021_warning_push.sql": {"WarningPush": ["warning_subscriptions", "warning_push_roots", "warning_notified"]},
    "0022_daily_counts.sql": {"Limits": ["daily_counts"]},
    "0026_warning_notified_without_foreign_keys.sql": {"WarningPush": ["warning_notified_forget_devices"]},
    "0027_nextwave_community.sql": {"NextWave": ["nextwave_users", "nextwave_sessions", "nextwave_refresh_tokens", "nextwave_checkins",
                                                 "nextwave_history", "nextwave_profiles", "nextwave_badges", "nextwave_devices",
                                                 "nextwave_verified_sessions"]},
    "0029_push_devices_per_app.sql": {},
    "0030_weather_places_shared.sql": {},
    "0031_metno_shared.sql": {},
    "0032_weather_forecasts_shared.sql": {},
    "0033_change_notices.sql": {"Scheduling": ["pier_announce"], "NextWave": ["nextwave_checkin_public", "nextwave_checkins_changed"]},
}
# The change feed's channel and the SQL that writes or hears it: Scheduling's alone (ChangeFeed).
CHANNEL_OWNER = "Scheduling"
CHANNEL_SQL = re.compile(r"\bpg_notify\b|\bpier_data_changed\b|\bLISTEN\s|\bNOTIFY\s")
CREATED = re.compile(r"(?i)\bCREATE\s+(?:UNLOGGED\s+)?(?:TABLE|MATERIALIZED\s+VIEW|VIEW)\s+(?:IF\s+NOT\s+EXISTS\s+)?([a-z_][a-z0-9_]*)")
FUNCTION = re.compile(r"(?i)\b(?:CREATE\s+(?:OR\s+REPLACE\s+)?|DROP\s+)FUNCTION\s+(?:IF\s+EXISTS\s+)?([a-z_][a-z0-9_]*)")
COMMENT = re.compile(r"//.*")
SQL_COMMENT = re.compile(r"--.*")


def migrations():
    """(module or None for the frozen top level, file name, SQL without comments), in version order."""
    found = []
    for entry in os.listdir("Migrations"):
        path = os.path.join("Migrations", entry)
        if os.path.isdir(path):
            found += [(entry, name, os.path.join(path, name)) for name in os.listdir(path) if name.endswith(".sql")]
        elif entry.endswith(".sql"):
            found.append((None, entry, path))
    found.sort(key=lambda item: item[1])
    return [(module, name, SQL_COMMENT.sub("", open(path, encoding="utf-8").read())) for module, name, path in found]


def schema_owners(modules):
    """Who owns each table and function the migrations create, and what the migrations' SQL does to other modules'."""
    owner, problems = {}, []
    for name, created in BEFORE_FOLDERS.items():
        for module, objects in created.items():
            owner.update((thing, module) for thing in objects)
    files = migrations()
    top = {name for module, name, _ in files if module is None}
    problems += [f"Migrations/{name}: a new migration goes in its module's folder, Migrations/<Module>/" for name in sorted(top - BEFORE_FOLDERS.keys())]
    problems += [f"Migrations/{name}: listed in BEFORE_FOLDERS (scripts/lib/check_seams.py) but gone" for name in sorted(BEFORE_FOLDERS.keys() - top)]
    for module, name, sql in files:
        if module is None:
            continue
        if module not in modules:
            problems.append(f"Migrations/{module}/: no module {module} in Package.swift owns this folder")
        for thing in CREATED.findall(sql) + [match.group(1) for match in FUNCTION.finditer(sql) if match.group(0).upper().startswith("CREATE")]:
            owner.setdefault(thing.lower(), module)
    # What a folder's files say of another module's tables (a trigger, a key, a statement) or functions (defining or
    # dropping them) crosses a seam; calling a function another module offers (defines) is how it is asked.
    for module, name, sql in files:
        if module is None:
            continue
        defined = {match.group(1).lower() for match in FUNCTION.finditer(sql)}
        for thing in sorted(set(re.findall(r"\b[a-z_][a-z0-9_]*\b", sql.lower()))):
            other = owner.get(thing)
            if other in (None, module):
                continue
            is_function = thing in defined or re.search(r"\b" + thing + r"\s*\(", sql.lower())
            if is_function and thing not in defined:
                continue  # a call: the owner offers it
            what = "function" if is_function else "table"
            problems.append(f"Migrations/{module}/{name}: {module} {'redefines or drops' if is_function else 'names'} {other}'s {what} {thing}"
                            + ("" if is_function else " (ask its owner to offer a function)"))
    return owner, problems


def table_problems(modules):
    owner, problems = schema_owners(modules)
    named = re.compile(r"\b(" + "|".join(sorted(owner, key=len, reverse=True)) + r")\b")
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
                for thing in set(named.findall(code)):
                    if owner[thing] != module:
                        problems.append(f"{path}:{number}: {module} names {owner[thing]}'s {thing} (ask through its API)")
    return problems, len(owner)

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
    tables, object_count = table_problems({target["name"] for target in package["targets"]})
    problems += tables
    size = os.path.getsize("README.md")
    if size > README_LIMIT:
        problems.append(f"README.md is {size:,} bytes: at most {README_LIMIT:,} (move detail to docs/)")
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print(f"seams: {len(package['targets'])} targets declare exactly what they import; {object_count} tables and functions, each"
          f" owned by the folder of Migrations/ that creates it and named by no other module; the change feed's channel only by"
          f" {CHANNEL_OWNER}; README.md {size:,} bytes")


main()
