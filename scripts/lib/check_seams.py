#!/usr/bin/env python3
"""The seams the compiler does not check, checked before the tests (scripts/test):

- every target declares exactly the modules its Swift imports (`swift package dump-package` against the `import` lines):
  an undeclared import builds only while another target happens to pull the module in; an unused dependency is a
  coupling nobody can see;
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
    size = os.path.getsize("README.md")
    if size > README_LIMIT:
        problems.append(f"README.md is {size:,} bytes: at most {README_LIMIT:,} (move detail to docs/)")
    if problems:
        print("\n".join(problems))
        sys.exit(1)
    print(f"seams: {len(package['targets'])} targets declare exactly what they import; README.md {size:,} bytes")


main()
