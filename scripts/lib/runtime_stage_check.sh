# Sourced by scripts/test (after common.sh): the Dockerfile's runtime stage proven without a Docker engine.
#
# runtime_stage_check BINARY_WORKDIR : a Debian bookworm `minbase` root file system (what debian:bookworm-slim
# is made of) gets the runtime stage's own RUN lines (its apt-get install of exactly RUNTIME_PACKAGES, the
# user), made once per Dockerfile runtime stage and kept under /var/cache/pier (outside the clone, so runs on
# one machine reuse it). Its COPY lines are replayed into a throw-away copy (the binary from the replayed
# build stage), then `pier serve --demo` runs in it as the image's user with /proc mounted, against the test
# PostgreSQL (its socket directory bound in), and must answer `/api/ships` 200; `pier health-check` (the
# image's HEALTHCHECK) must pass. A shared library missing from the stage fails the run. Needs root (chroot,
# mount): through sudo otherwise.
PIER_RUNTIME_CACHE="${PIER_RUNTIME_CACHE:-/var/cache/pier}"

# runtime_rootfs_base WORK : the runtime stage's root file system without its COPY lines, made if this machine has
# none for this stage yet (debootstrap and the stage's RUN lines: a minute or two of downloading on a fresh machine,
# which scripts/test starts beside the build — PIER_ROOTFS_PID — so that the check at the end finds it made); prints
# its path.
runtime_rootfs_base() {
    local work=$1 stage key base line
    ensure_packages debootstrap
    mkdir -p "$work"
    stage="$(python3 "$PIER_ROOT/scripts/lib/docker_build_replay.py" "$PIER_ROOT" "$work" - 2>/dev/null | grep -E '^(ARG|RUN) ' || true)"
    [ -n "$stage" ] || die "runtime stage check: no ARG/RUN lines in the Dockerfile's last stage"
    key="$(printf '%s' "$stage" | sha256sum | cut -c1-16)"
    base="$PIER_RUNTIME_CACHE/runtime-rootfs-$key"
    if [ ! -x "$base/usr/bin/env" ]; then
        log "runtime stage: making a Debian bookworm minbase root file system in $base (once per runtime stage; kept for later runs)"
        as_root mkdir -p "$PIER_RUNTIME_CACHE"
        as_root rm -rf "$base.partial"
        as_root debootstrap --variant=minbase bookworm "$base.partial" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 \
            || { tail -n 20 "$work/debootstrap.log" >&2; die "debootstrap failed"; }
        as_root cp /etc/resolv.conf "$base.partial/etc/resolv.conf"
        local args=()
        while IFS= read -r line; do args+=("$line"); done < <(printf '%s\n' "$stage" | sed -n 's/^ARG //p')
        while IFS= read -r line; do
            log "runtime stage: RUN ${line#RUN }"
            as_root chroot "$base.partial" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "${args[@]}" \
                sh -c "${line#RUN }" >>"$work/debootstrap.log" 2>&1 \
                || { tail -n 20 "$work/debootstrap.log" >&2; die "the runtime stage's RUN failed: ${line#RUN }"; }
        done < <(printf '%s\n' "$stage" | grep '^RUN ')
        as_root mv "$base.partial" "$base"
    fi
    printf '%s\n' "$base"
}

runtime_stage_check() {
    local work=$1 base rootfs port pid status=0 user env_args=() line
    [ -n "${PIER_PG_SOCKET_DIR:-}" ] || die "runtime stage check: the test PostgreSQL has no shared socket directory (PIER_PG_SOCKET_DIR)"
    # Made beside the build (scripts/test): its outcome first, so that two runs never make it at once.
    if [ -n "${PIER_ROOTFS_PID:-}" ]; then
        wait "$PIER_ROOTFS_PID" || true
        PIER_ROOTFS_PID=""
    fi
    base="$(runtime_rootfs_base "$work")" || die "runtime stage: its root file system could not be made"

    rootfs="$work/runtime-rootfs"
    runtime_stage_cleanup "$rootfs"
    log "runtime stage: a copy of $base with the stage's COPY lines replayed"
    as_root cp -a "$base" "$rootfs"
    local layout
    layout="$(as_root python3 "$PIER_ROOT/scripts/lib/docker_build_replay.py" "$PIER_ROOT" "$work" "$rootfs")" || die "runtime stage: replaying COPY failed"
    user="$(printf '%s\n' "$layout" | sed -n 's/^USER //p' | tail -n 1)"
    while IFS= read -r line; do env_args+=("$line"); done < <(printf '%s\n' "$layout" | sed -n 's/^ENV //p')
    [ -n "$user" ] || die "runtime stage: no USER in the Dockerfile's last stage"
    local uid
    uid="$(as_root chroot "$rootfs" id -u "$user")" || die "runtime stage: the image has no user $user"

    as_root mount -t proc proc "$rootfs/proc"
    as_root mkdir -p "$rootfs$PIER_PG_SOCKET_DIR"
    as_root mount --bind "$PIER_PG_SOCKET_DIR" "$rootfs$PIER_PG_SOCKET_DIR"
    port="$(free_port)"
    local url="postgresql:///pier_runtime_check?host=$PIER_PG_SOCKET_DIR&port=$PIER_PG_PORT&user=pier"
    pg_as_owner "$(pg_bindir)/psql" -h "$PIER_PG_SOCKET_DIR" -p "$PIER_PG_PORT" -U pier -d postgres -qc 'SET client_min_messages = warning' -c 'DROP DATABASE IF EXISTS pier_runtime_check_demo' -c 'DROP DATABASE IF EXISTS pier_runtime_check' -c 'CREATE DATABASE pier_runtime_check' >/dev/null
    log "runtime stage: pier serve --demo as $user (uid $uid) on 127.0.0.1:$port"
    # Not through as_root: a backgrounded shell function is a subshell, and the signal below must reach pier
    # (chroot and env exec it; sudo passes signals on).
    local sudo=()
    [ "$(id -u)" -eq 0 ] || sudo=(sudo)
    "${sudo[@]}" chroot --userspec="$uid:$uid" "$rootfs" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin "${env_args[@]}" \
        HOST=127.0.0.1 PORT="$port" DATABASE_URL="$url" LOG_LEVEL=warning /usr/local/bin/pier serve --demo >"$work/runtime-serve.log" 2>&1 &
    pid=$!
    local deadline=$((SECONDS + 60)) code=000
    while [ $SECONDS -lt $deadline ] && kill -0 "$pid" 2>/dev/null; do
        code="$(http_status "http://127.0.0.1:$port/api/ships")"
        [ "$code" = 200 ] && break
        sleep 0.5
    done
    if [ "$code" != 200 ]; then
        echo "runtime stage: /api/ships answered $code; pier's output:" >&2
        tail -n 30 "$work/runtime-serve.log" >&2
        status=1
    elif ! as_root chroot --userspec="$uid:$uid" "$rootfs" /usr/bin/env -i "${env_args[@]}" PORT="$port" /usr/local/bin/pier health-check; then
        echo "runtime stage: pier health-check (the image's HEALTHCHECK) failed" >&2
        status=1
    elif ! as_root chroot --userspec="$uid:$uid" "$rootfs" /usr/bin/env -i "${env_args[@]}" PORT="$port" /usr/local/bin/pier health-check --ready; then
        echo "runtime stage: pier health-check --ready (what scripts/upgrade waits for) failed" >&2
        status=1
    else
        echo "runtime stage: /api/ships 200 and health-check (--ready too) passed in bookworm minbase + RUNTIME_PACKAGES as uid $uid"
    fi
    as_root kill -TERM "$pid" 2>/dev/null || true
    local exit_status=0
    wait "$pid" || exit_status=$?
    if [ "$status" -eq 0 ] && [ "$exit_status" -ne 0 ]; then
        echo "runtime stage: pier exited $exit_status after SIGTERM; its output:" >&2
        tail -n 30 "$work/runtime-serve.log" >&2
        status=1
    fi
    pg_as_owner "$(pg_bindir)/psql" -h "$PIER_PG_SOCKET_DIR" -p "$PIER_PG_PORT" -U pier -d postgres -qc 'SET client_min_messages = warning' -c 'DROP DATABASE IF EXISTS pier_runtime_check_demo' -c 'DROP DATABASE IF EXISTS pier_runtime_check' >/dev/null || true
    runtime_stage_cleanup "$rootfs"
    return $status
}

# http_status URL : the status code of a GET (000 when nothing answered); the runtime image has no curl, nor
# does this machine need one.
http_status() {
    python3 - "$1" <<'PY'
import sys, urllib.error, urllib.request
try:
    print(urllib.request.urlopen(sys.argv[1], timeout=5).status)
except urllib.error.HTTPError as error:
    print(error.code)
except Exception:
    print("000")
PY
}

runtime_stage_cleanup() {
    local rootfs=$1
    [ -d "$rootfs" ] || return 0
    as_root umount -l "$rootfs/proc" 2>/dev/null || true
    if [ -n "${PIER_PG_SOCKET_DIR:-}" ]; then as_root umount -l "$rootfs$PIER_PG_SOCKET_DIR" 2>/dev/null || true; fi
    # Only after both are unmounted: rm must never reach the bound socket directory.
    if ! grep -q " $rootfs/" /proc/mounts; then as_root rm -rf "$rootfs"; fi
}
