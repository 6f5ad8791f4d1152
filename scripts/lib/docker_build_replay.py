#!/usr/bin/env python3
"""Replays the Dockerfile's build stage without a Docker engine, so CI fails when `docker build` would.

Usage: docker_build_replay.py REPOSITORY WORKDIR            replays the build stage
       docker_build_replay.py REPOSITORY WORKDIR ROOTFS     lays the runtime stage's files into ROOTFS


1. The build context is the repository's files minus what `.dockerignore` leaves out (Docker's rules: patterns
   relative to the root, `*`, `?`, `**`, `!` exceptions, the last match winning, a directory's exclusion
   covering what is below it).
2. The build stage (`FROM … AS build` up to the next `FROM`) is read: `WORKDIR`, `COPY` (from the context) and
   `RUN`. Its `WORKDIR` becomes WORKDIR/root/<workdir>; `COPY` copies from the context only (a file Docker would
   not send is not there); `RUN` commands run there with `sh -c`, except `apt-get` ones (scripts/test installs
   the same Debian packages on this machine; their names are checked to be installed). Absolute paths under
   `/out` are mapped to WORKDIR/root/out.
Copies keep modification times, so a second replay on the same machine builds incrementally. Exits non-zero
with the failing step when the stage does not build.

PIER_REPLAY_CONFIGURATION says how its `swift build -c release …` line is replayed:
- `link` (unless set; what scripts/test runs): the product is not compiled a second time. Compiling it again from the
  copied context took about a fifth of the whole test run's CPU (the debug build of every module; the optimiser's
  release build about 17 CPU-minutes), and what the replay is for does not need it: (1) the manifest is evaluated in
  the context (`swift package describe`, no Tests/ there) and must give the product the same modules, sources,
  resources and dependencies as the repository's — so the compile in the context would compile exactly what the
  tests' build compiled; (2) every file at the repository's root that a build plugin names (openapi.yaml) must be in
  the context; (3) the tests' build's objects are linked as the line links the product (`--static-swift-stdlib`:
  SwiftPM's own link command for it, from .build/debug.yaml, with `-static-stdlib`) straight to where the line
  installs it, for the runtime stage — SwiftPM's state is not touched. The line itself
  must be the one this mode knows (a changed line fails here: replay it with `debug` and teach this mode).
- `debug`: the line run in the context, compiled in debug without DWARF (what CI did before `link`).
- `release`: the line run exactly (before changing the Dockerfile or the compiler flags; scripts/bench and scripts/ab
  build release too).

With ROOTFS (a Debian root file system made from the runtime stage's packages, see runtime_stage_check.sh): the
last stage's `COPY` lines are replayed into it (`--from=build` taking the replayed build's files), and its
`ARG`, `RUN`, `ENV` and `USER` lines are printed for the caller (`ENV NAME=VALUE` one per line). ROOTFS `-`
copies nothing and only prints.
"""
import fnmatch
import json
import os
import pathlib
import re
import shlex
import shutil
import subprocess
import sys


def dockerignore_patterns(root):
    path = root / ".dockerignore"
    patterns = []
    if path.exists():
        for line in path.read_text().splitlines():
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            negated = line.startswith("!")
            pattern = line[1:].strip() if negated else line
            pattern = os.path.normpath(pattern).lstrip("/")
            patterns.append((negated, pattern))
    return patterns


def matches(pattern, relative):
    """Docker's matching: the pattern against the path or any of its parent directories."""
    regex = re.escape(pattern).replace(r"\*\*/", "(?:.*/)?").replace(r"\*\*", ".*").replace(r"\*", "[^/]*").replace(r"\?", "[^/]")
    parts = relative.split("/")
    return any(re.fullmatch(regex, "/".join(parts[:i])) for i in range(1, len(parts) + 1))


def in_context(relative, patterns):
    excluded = False
    for negated, pattern in patterns:
        if matches(pattern, relative):
            excluded = not negated
    return not excluded


def stage(dockerfile, name):
    """The instructions of the stage named `name` (`None`: the last stage), continuation lines joined."""
    lines, current = [], ""
    for raw in dockerfile.read_text().splitlines():
        stripped = raw.strip()
        if not current and (not stripped or stripped.startswith("#")):
            continue
        if stripped.endswith("\\"):
            current += stripped[:-1] + " "
            continue
        lines.append(current + stripped)
        current = ""
    found, inside = [], False
    for line in lines:
        keyword, _, rest = line.partition(" ")
        if keyword.upper() == "FROM":
            inside = name is None or bool(re.search(rf"\bAS\s+{name}\s*$", rest, re.IGNORECASE))
            if name is None:
                found = []
            continue
        if inside:
            found.append((keyword.upper(), rest.strip()))
    if not found:
        sys.exit(f"docker build replay: no stage `FROM … AS {name}` in the Dockerfile")
    return found


def copy_into(context_root, patterns, source, destination):
    """COPY SOURCE DESTINATION from the context (files Docker would not send are skipped)."""
    origin = context_root / source
    if not origin.exists():
        sys.exit(f"docker build replay: COPY {source}: not in the repository")
    if origin.is_file():
        if not in_context(source.rstrip("/"), patterns):
            sys.exit(f"docker build replay: COPY {source}: left out of the build context by .dockerignore")
        target = destination / origin.name if destination.is_dir() else destination
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(origin, target)
        return 1
    if destination.exists():
        shutil.rmtree(destination)
    copied = 0
    for path in sorted(origin.rglob("*")):
        relative = path.relative_to(context_root).as_posix()
        if path.is_file() and in_context(relative, patterns):
            target = destination / path.relative_to(origin)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
            copied += 1
    return copied


def runtime(root, work, rootfs):
    """Replays the last stage's COPY lines into `rootfs`; prints its ENV and USER."""
    patterns = dockerignore_patterns(root)
    workdir = rootfs
    dry = str(rootfs) == "-"
    for keyword, argument in stage(root / "Dockerfile", None):
        if dry and keyword in ("WORKDIR", "COPY"):
            continue
        if keyword == "WORKDIR":
            workdir = rootfs / argument.lstrip("/")
            workdir.mkdir(parents=True, exist_ok=True)
        elif keyword == "COPY":
            words = shlex.split(argument)
            origin_root = work / "root" if any(word == "--from=build" for word in words) else root
            *sources, destination = [word for word in words if not word.startswith("--")]
            target = workdir / destination if not destination.startswith("/") else rootfs / destination.lstrip("/")
            for source in sources:
                relative = source.lstrip("/")
                if origin_root is root:
                    copy_into(root, patterns, relative.rstrip("/"), target)
                else:
                    target.parent.mkdir(parents=True, exist_ok=True)
                    shutil.copy2(origin_root / relative, target)
        elif keyword == "ENV":
            for word in shlex.split(argument):
                print(f"ENV {word}")
        elif keyword == "USER":
            print(f"USER {argument}")
        elif keyword == "ARG":
            for word in shlex.split(argument):
                print(f"ARG {word}")
        elif keyword == "RUN":
            print(f"RUN {argument}")


# The build stage's one compile line as `link` knows it: the product, and where it is installed.
BUILD_LINE = re.compile(
    r'swift build -c release --static-swift-stdlib --product (\S+) && install -D "\$\(swift build -c release --show-bin-path\)/\1" (/out/\S+)')


def described(directory, product):
    """The modules of `product` as the manifest evaluated in `directory` declares them (`swift package describe`)."""
    result = subprocess.run(["swift", "package", "--manifest-cache", "local", "describe", "--type", "json"], cwd=directory,
                            capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"docker build replay: the manifest does not evaluate in {directory}:\n{result.stderr[-2000:]}")
    targets = {target["name"]: target for target in json.loads(result.stdout)["targets"]}
    fields = ("type", "path", "sources", "resources", "target_dependencies", "product_dependencies")
    # The product's modules and, through their dependencies, the build plugins and tools they use.
    wanted = [name for name, target in targets.items() if product in target.get("product_memberships", [])]
    found = {}
    while wanted:
        name = wanted.pop()
        if name in found or name not in targets:
            continue
        found[name] = {field: targets[name].get(field) for field in fields}
        wanted += targets[name].get("target_dependencies", [])
    return found


def link_product(root, context, argument, image_root):
    """`link`: the context builds what the tests' build built, and the product is linked as the line links it."""
    match = BUILD_LINE.fullmatch(" ".join(argument.split()))
    if not match:
        sys.exit("docker build replay: the build stage's swift build line is not the one PIER_REPLAY_CONFIGURATION=link knows:\n  "
                 + argument + "\nreplay it with PIER_REPLAY_CONFIGURATION=debug scripts/test and teach link mode the new line")
    product, installed = match.group(1), match.group(2)
    print(f"RUN {argument}", flush=True)
    print("RUN (link: the manifest evaluated in the context against the repository's; the product linked from the tests' build; "
          "PIER_REPLAY_CONFIGURATION=debug compiles it in the context)", flush=True)
    image, repository = described(context, product), described(root, product)
    if image != repository:
        differing = sorted(name for name in set(image) | set(repository) if image.get(name) != repository.get(name))
        details = "; ".join(f"{name}: image {image.get(name)} / repository {repository.get(name)}" for name in differing[:3])
        sys.exit(f"docker build replay: the image's build would compile {product} differently from the repository's: {details}")
    named = set()
    for source in (root / "Plugins").rglob("*.swift"):
        named.update(re.findall(r'"([^"/]+\.[a-z]+)"', source.read_text()))
    for name in sorted(named):
        if (root / name).is_file() and not (context / name).is_file():
            sys.exit(f"docker build replay: a build plugin reads {name}, which the build stage does not COPY into its context")
    # The tests' build's own link of the product (SwiftPM's llbuild manifest), run again with --static-swift-stdlib's one
    # difference and another output: SwiftPM's state is left as it was (a `swift build --static-swift-stdlib` there
    # recompiled the module whose plugin output it regenerated with static autolink entries, and the next dynamic build
    # of the tests failed to link).
    manifest = root / ".build" / "debug.yaml"
    if not manifest.is_file():
        sys.exit("docker build replay: no tests' build to link from (.build/debug.yaml): build first (swift build --build-tests)")
    text = manifest.read_text()
    found = re.search(r'^  "C\.' + re.escape(product) + r'-[^"]*-debug\.exe":\n(?:    .*\n)*?    args: (\[.*\])$', text, flags=re.M)
    if not found:
        sys.exit(f"docker build replay: .build/debug.yaml has no link of {product}")
    arguments = json.loads(found.group(1))
    target = image_root / installed.lstrip("/")
    target.parent.mkdir(parents=True, exist_ok=True)
    output = arguments.index("-o") + 1
    arguments[output] = str(target)
    arguments.insert(arguments.index("-module-name") + 2, "-static-stdlib")
    # Objects compiled for a dynamic runtime do not name the static Foundation's own libraries (a compile with
    # -static-stdlib writes them into the object's autolink entries): an object importing what the product's sources
    # import, compiled that way, brings them to the link.
    imported = set()
    for module in repository.values():
        for source in module.get("sources") or []:
            path = root / module["path"] / source
            if path.suffix == ".swift" and path.is_file():
                imported.update(re.findall(r"^(?:@preconcurrency )?import (Foundation\w*)\s*$", path.read_text(), flags=re.M))
    shim = image_root / "link" / "static_foundation.swift"
    shim.parent.mkdir(parents=True, exist_ok=True)
    shim.write_text("".join(f"import {name}\n" for name in sorted(imported | {"Foundation"})))
    compiled = subprocess.run(["swiftc", "-static-stdlib", "-parse-as-library", "-c", str(shim), "-o", str(shim.with_suffix(".o"))], cwd=root)
    if compiled.returncode != 0:
        sys.exit("docker build replay: the static Foundation's libraries could not be named (swiftc -static-stdlib)")
    arguments.append(str(shim.with_suffix(".o")))
    link = subprocess.run(arguments, cwd=root)
    if link.returncode != 0:
        sys.exit(f"docker build replay: {product} does not link with --static-swift-stdlib (exit {link.returncode})")
    print(f"{product}: {len(repository)} modules and plugins as in the repository; linked statically and installed as {installed}", flush=True)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    root = pathlib.Path(sys.argv[1]).resolve()
    work = pathlib.Path(sys.argv[2]).resolve()
    if len(sys.argv) == 4:
        return runtime(root, work, sys.argv[3] if sys.argv[3] == "-" else pathlib.Path(sys.argv[3]).resolve())
    patterns = dockerignore_patterns(root)
    image_root = work / "root"
    workdir = image_root
    for keyword, argument in stage(root / "Dockerfile", "build"):
        if keyword == "WORKDIR":
            workdir = image_root / argument.lstrip("/")
            workdir.mkdir(parents=True, exist_ok=True)
        elif keyword == "COPY":
            words = shlex.split(argument)
            if any(word.startswith("--from") for word in words):
                continue
            words = [word for word in words if not word.startswith("--")]
            *sources, destination = words
            target = workdir / destination if not destination.startswith("/") else image_root / destination.lstrip("/")
            for source in sources:
                count = copy_into(root, patterns, source.rstrip("/") if source != "./" else ".", target if len(sources) == 1 and not destination.endswith("/") else target / pathlib.Path(source).name)
                print(f"COPY {source} {destination}: {count} file(s)", flush=True)
        elif keyword == "RUN":
            if argument.startswith("apt-get"):
                packages = [word for word in re.findall(r"install\s+(?:-\S+\s+)*([^&]+)", argument)[0].split() if not word.startswith("-")]
                missing = [name for name in packages if subprocess.run(
                    ["dpkg-query", "-W", "-f=${Status}", name], capture_output=True, text=True).stdout.find("install ok installed") < 0]
                if missing:
                    sys.exit(f"docker build replay: the build stage installs {' '.join(missing)}, missing on this machine")
                print(f"RUN apt-get …: {' '.join(packages)} installed here", flush=True)
                continue
            command = re.sub(r"(?<![\w/.])/out/", str(image_root / "out") + "/", argument)
            configuration = os.environ.get("PIER_REPLAY_CONFIGURATION", "link")
            if configuration == "link" and "swift build" in command:
                link_product(root, workdir, argument, image_root)
                continue
            if configuration != "release" and "swift build" in command:
                # No DWARF either: nothing reads it here, and writing it (the static link's above all) is CPU the test
                # command's last minutes wait on.
                command = command.replace("-c release", f"-c {configuration} -debug-info-format none")
                print(f"RUN (in {configuration}: PIER_REPLAY_CONFIGURATION=release replays it exactly)", flush=True)
            print(f"RUN {argument}", flush=True)
            result = subprocess.run(["sh", "-c", command], cwd=workdir)
            if result.returncode != 0:
                sys.exit(f"docker build replay: RUN {argument} failed (exit {result.returncode}): the image would not build")
    print(f"the build stage builds from its own context ({workdir.relative_to(work)})", flush=True)


main()
