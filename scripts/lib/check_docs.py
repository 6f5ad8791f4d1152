#!/usr/bin/env python3
"""Every link and command the docs show works (scripts/test):

- every relative link in README.md, docs/ and the modules' READMEs (Sources/*/README.md) names a file of the
  repository, and its anchor (`#…`) a heading of that file as GitHub makes anchors of headings;
- every module's folder under Sources/ has its note, README.md: `# <Module>`, what it holds, **Offers**, **Must not**,
  **Tests**, in at most 3 KB;
- every repository path shown in a code span (`Sources/Push/README.md`, `deploy/db/`) names a file or folder of the
  repository: a span of path characters whose first part is one of the repository's top-level entries (what is made
  by a build or run — `.build`, `.data` — and spans with a pattern or a placeholder are not paths of it);
- every alert rule's `runbook:` annotation (deploy/monitoring/prometheus/rules/) names a page and a heading of it;
- every `pier …` command shown in code (a code span, or a line of a code block) names a command of pier: its first
  word, at least, is a subcommand that `pier <words> --help` says it runs (its usage line).

Usage: check_docs.py REPOSITORY PIER_BINARY
"""
import os
import re
import subprocess
import sys

repository, pier = os.path.realpath(sys.argv[1]), sys.argv[2]
pages = [os.path.join(repository, "README.md")]
for folder in ("docs", "Sources"):
    for root, _, files in os.walk(os.path.join(repository, folder)):
        pages += [os.path.join(root, name) for name in files if name.endswith(".md")]
problems = []


def text_without_code(text):
    """The page with its fenced blocks and inline code blanked (a link inside code is not a link)."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)
    return re.sub(r"`[^`\n]*`", "", text)


def anchors(path, cache={}):
    """The anchors GitHub gives the headings of the page at `path`."""
    if path not in cache:
        found, seen = set(), {}
        text = re.sub(r"^```.*?^```", "", open(path, encoding="utf-8").read(), flags=re.S | re.M)
        for heading in re.findall(r"^#{1,6} +(.+?) *#*$", text, flags=re.M):
            slug = re.sub(r"[^\w\- ]", "", heading.strip().lower().replace("`", "")).replace(" ", "-")
            count = seen.get(slug, 0)
            seen[slug] = count + 1
            found.add(slug if count == 0 else f"{slug}-{count}")
        cache[path] = found
    return cache[path]


links = 0
for page in pages:
    text = open(page, encoding="utf-8").read()
    for target in re.findall(r"\]\(([^)\s]+)\)", text_without_code(text)):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):
            continue
        links += 1
        path, _, anchor = target.partition("#")
        resolved = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        where = os.path.relpath(page, repository)
        if not resolved.startswith(repository + os.sep) or not os.path.exists(resolved):
            problems.append(f"{where}: the link {target} names no file of the repository")
        elif anchor and resolved.endswith(".md") and anchor not in anchors(resolved):
            problems.append(f"{where}: the link {target} names no heading of {os.path.relpath(resolved, repository)}")

# Runbooks: each alert's annotation is the link an operator follows from the page that woke them.
runbooks = 0
rules = os.path.join(repository, "deploy", "monitoring", "prometheus", "rules")
for name in sorted(os.listdir(rules)) if os.path.isdir(rules) else []:
    for target in re.findall(r"^\s*runbook:\s*(\S+)", open(os.path.join(rules, name), encoding="utf-8").read(), flags=re.M):
        runbooks += 1
        path, _, anchor = target.partition("#")
        resolved = os.path.join(repository, path)
        if not os.path.exists(resolved) or (anchor and anchor not in anchors(resolved)):
            problems.append(f"deploy/monitoring/prometheus/rules/{name}: the runbook {target} names no page or heading")

# Paths: a code span of path characters, relative, whose first part is a top-level entry of the repository (or of the
# page's own folder) — the repository's files as the page names them; anything else in code (a route, a host path, a
# placeholder, a glob) is not checked.
PATH = re.compile(r"[A-Za-z0-9_.-]+(?:/[A-Za-z0-9_.+-]+)*/?")
# What .gitignore keeps out is made by a run, not shipped; a placeholder (`Sources/Foo/…`, `NNNN_…`) names no file.
made = {".git", ".build", ".data", "bench/results"}
placeholder = re.compile(r"Foo|foo|NNNN|\*")
top = set(os.listdir(repository)) - made
paths = 0
for page in pages:
    text = re.sub(r"^```.*?^```", "", open(page, encoding="utf-8").read(), flags=re.S | re.M)
    for span in set(re.findall(r"`([^`\n]+)`", text)):
        if not PATH.fullmatch(span) or "/" not in span.rstrip("/") and not os.path.isfile(os.path.join(repository, span)):
            continue
        if placeholder.search(span) or any(span.startswith(m + "/") for m in made):
            continue
        first = span.split("/")[0]
        here = os.path.dirname(page)
        if first in top and not first.startswith(".build"):
            base = repository
        elif os.path.exists(os.path.join(here, first)) and first not in (".", ".."):
            base = here
        else:
            continue
        paths += 1
        if not os.path.exists(os.path.join(base, span)):
            problems.append(f"{os.path.relpath(page, repository)}: `{span}` names no file or folder of the repository")

# Commands: `pier` as the command of a code span or of a line in a code block — at its start, or after a path
# (`.build/debug/pier`) or `docker compose exec <service>`.
COMMAND = re.compile(r"^\s*(?:\$ )?(?:[\w./-]*/|docker compose exec (?:-T )?\S+ )?pier((?: +[a-z][a-z0-9-]*)+)")
commands = {}
for page in pages:
    text = open(page, encoding="utf-8").read()
    blocks = re.findall(r"^```[^\n]*\n(.*?)^```", text, flags=re.S | re.M)
    spans = re.findall(r"`([^`\n]+)`", re.sub(r"^```.*?^```", "", text, flags=re.S | re.M))
    for line in [line for block in blocks for line in block.splitlines()] + spans:
        match = COMMAND.match(line)
        if match:
            commands.setdefault(tuple(match.group(1).split()[:3]), os.path.relpath(page, repository))


def named(words):
    """The leading words of `words` that pier takes as subcommands: those its help's usage line names."""
    usage = subprocess.run([pier, *words, "--help"], capture_output=True, text=True).stdout
    line = next((line for line in usage.splitlines() if line.startswith("USAGE: pier")), "USAGE: pier").split()[2:]
    found = []
    for word, used in zip(words, line):
        if word != used:
            break
        found.append(word)
    return found


for words, page in sorted(commands.items()):
    if not named(list(words)):
        problems.append(f"{page}: `pier {' '.join(words)}` names no command of pier")

# A note in every room: each module's folder says what it holds, what it offers, what it must not touch and where its
# tests are, in at most 3 KB.
modules = sorted(name for name in os.listdir(os.path.join(repository, "Sources")) if os.path.isdir(os.path.join(repository, "Sources", name)))
for module in modules:
    note = os.path.join(repository, "Sources", module, "README.md")
    if not os.path.exists(note):
        problems.append(f"Sources/{module}/ has no README.md (what it holds, offers, must not touch, where its tests are)")
        continue
    text = open(note, encoding="utf-8").read()
    if len(text.encode()) > 3072:
        problems.append(f"Sources/{module}/README.md is {len(text.encode())} bytes (at most 3 KB: a note, not a manual)")
    missing = [part for part in ("**Offers**", "**Must not**", "**Tests**") if part not in text]
    if not text.startswith(f"# {module}\n") or missing:
        problems.append(f"Sources/{module}/README.md does not start with '# {module}' or lacks {', '.join(missing)}")

if problems:
    sys.exit("the docs:\n  " + "\n  ".join(problems))
print(f"docs: {links} relative links and their anchors resolve; {paths} paths shown exist; {runbooks} alerts' runbooks resolve; {len(commands)} `pier …` commands shown name pier's commands; "
      f"{len(modules)} modules each with their note")
