#!/usr/bin/env bash
# check_runtime_libs.sh BINARY DOCKERFILE
# Fails when BINARY links a shared library that the Dockerfile's runtime stage would not have: every
# library `ldd` lists must come from a package in RUNTIME_PACKAGES (the ARG in the Dockerfile), one of their
# dependencies, or the base of debian:bookworm-slim (libc6, libgcc-s1, libstdc++6, zlib1g).
set -euo pipefail
binary=$1
dockerfile=$2
runtime=$(sed -n 's/^ARG RUNTIME_PACKAGES="\(.*\)"$/\1/p' "$dockerfile")
[ -n "$runtime" ] || { echo "no ARG RUNTIME_PACKAGES=\"…\" in $dockerfile" >&2; exit 1; }
base="libc6 libgcc-s1 libstdc++6 zlib1g"
# shellcheck disable=SC2086
allowed=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts --no-breaks --no-replaces \
    --no-enhances $runtime $base 2>/dev/null | grep -v '^ ' | grep -v '^<' | sed 's/:.*//' | sort -u)
missing=0
checked=0
if ldd "$binary" | grep -q "not found"; then
    echo "ldd: unresolved libraries:" >&2
    ldd "$binary" | grep "not found" >&2
    exit 1
fi
while read -r library; do
    [ -n "$library" ] || continue
    checked=$((checked + 1))
    owners=$(dpkg -S "*/$(basename "$library")" 2>/dev/null | cut -d: -f1 | tr ',' '\n' | sed 's/ //g' | sort -u || true)
    ok=0
    for owner in $owners; do
        grep -qx "$owner" <<<"$allowed" && ok=1
    done
    if [ "$ok" -eq 0 ]; then
        echo "  $library (from: ${owners:-no package}) is not provided by the runtime stage" >&2
        missing=1
    fi
done < <(ldd "$binary" | awk '$2 == "=>" && $3 ~ /^\// { print $3 } $1 ~ /^\// { print $1 }')
[ "$missing" -eq 0 ] || exit 1
echo "runtime libraries: all $checked shared libraries of $(basename "$binary") come from: $runtime (+ $base)"
echo "swift runtime linked statically: $(ldd "$binary" | grep -c 'libswift' || true) libswift*.so dependencies"
