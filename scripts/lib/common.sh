# Shared by scripts/run, scripts/test and scripts/bench. Source it; do not run it.
# Installs what a fresh Debian machine is missing, so both README commands work from a clean clone.

PIER_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"

# Each line says when it was written (the minutes and seconds since the script began: where a run's time goes).
log() { printf '\033[1m==> [%d:%02d] %s\033[0m\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# The scripts' own PIER_* variables (the throw-away cluster's PIER_PG_*, the test tools', the fuzzer's) are not pier's
# settings, and pier warns of every PIER_* variable none of its settings reads (a typo would keep a default silently).
# So the scripts start pier without theirs: `pier_environment; "${PIER_ENV[@]}" pier serve …` (env, then pier: the same
# process, so `$!` is pier's).
pier_environment() {
    local name
    PIER_ENV=(env)
    for name in $(compgen -e); do
        case "$name" in
            PIER_PG_* | PIER_PYTHON | PIER_SCHEMATHESIS* | PIER_CLIENT_CHECK | PIER_FUZZ* | PIER_RUNTIME_CACHE | PIER_REPLAY_CONFIGURATION | PIER_BIN | PIER_KEEP_DRILL | PIER_UPGRADE_*)
                PIER_ENV+=(-u "$name") ;;
        esac
    done
}

# free_port: a TCP port on loopback nobody listens on now (the kernel's pick).
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# json PATH: the member PATH (e.g. '["user"]["id"]') of the JSON document on standard input.
json() { python3 -c "import json, sys; print(json.load(sys.stdin)$1)"; }

# Runs a command as root (directly, or through sudo when we are not root).
as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else die "need root (or sudo) to run: $*"
    fi
}

# Packages this run installed (ensure_packages), for stop_services_started_by_install.
PIER_NEWLY_INSTALLED=()

# ensure_packages PKG... : installs the Debian packages that are not installed yet (apt-get update once).
ensure_packages() {
    local missing=()
    local pkg
    for pkg in "$@"; do
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    log "installing the Debian packages ${missing[*]} (apt-get, as root)"
    PIER_NEWLY_INSTALLED+=("${missing[@]}")
    export DEBIAN_FRONTEND=noninteractive
    if [ -z "${PIER_APT_UPDATED:-}" ]; then
        as_root apt-get update -qq
        PIER_APT_UPDATED=1
    fi
    as_root apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# The system libraries Pier builds against, the PostgreSQL server with the PostGIS build for its major
# version, and wrk for benchmarks.
ensure_system_packages() {
    ensure_packages ca-certificates pkg-config libcurl4-openssl-dev libxml2-dev libpq-dev postgresql postgresql-contrib wrk
    local major
    major="$(pg_major_version)"
    [ -n "$major" ] || die "PostgreSQL server binaries not found under /usr/lib/postgresql"
    ensure_packages "postgresql-${major}-postgis-3"
}

# Debian starts a package's service when it installs it (on machines run by systemd): PostgreSQL's own
# cluster on port 5432, Caddy's default site on port 80, Prometheus on 9090, etcd on 2379 (Patroni's waits for a
# configuration). Pier uses none of them (its scripts start a private cluster, their own Caddy and Prometheus, and the
# failover drill its own etcd and Patroni), so a service that this run's install started is stopped and disabled
# again — said, not asked: CI has no input. A service that was installed before is left alone.
stop_services_started_by_install() {
    local package service
    for package in "${PIER_NEWLY_INSTALLED[@]}"; do
        case "$package" in
            postgresql) service=postgresql ;;
            caddy) service=caddy ;;
            prometheus) service=prometheus ;;
            etcd-server) service=etcd ;;
            patroni) service=patroni ;;
            *) continue ;;
        esac
        command -v systemctl >/dev/null 2>&1 && systemctl is-active --quiet "$service" 2>/dev/null || continue
        log "installing $package started the system service $service, which Pier does not use: stopping and disabling it (systemctl enable --now $service brings it back)"
        as_root systemctl disable --now "$service" >/dev/null 2>&1 || log "could not stop $service: stop it yourself if you do not want it"
    done
}

# The newest PostgreSQL major version installed from Debian's packages.
pg_major_version() {
    ls /usr/lib/postgresql 2>/dev/null | sort -n | tail -n 1
}

# Directory holding initdb, pg_ctl and postgres for that version.
pg_bindir() {
    echo "/usr/lib/postgresql/$(pg_major_version)/bin"
}

ensure_swift() {
    command -v swift >/dev/null 2>&1 || die "the Swift toolchain (6.0 or newer) is not on PATH: install it from swift.org (Debian has no current package) and run again"
}

# The PyPI tools the tests use, pinned, in a virtual environment under .build/python (not the system's
# Python): schemathesis (explores the real binary against openapi.yaml) and openapi-spec-validator
# (PyYAML comes with them), CacheControl (a standard HTTP cache for requests: the client-behaviour tests
# check that Pier's answers are reused and revalidated as intended), and h2 with trustme (the APNs stand-in: HTTP/2
# over TLS with a test CA). Sets PIER_PYTHON to the environment's bin directory.
PIER_PYTHON_TOOLS=("schemathesis==4.32.5" "openapi-spec-validator==0.9.0" "CacheControl==0.14.3" "h2==4.4.1" "trustme==1.2.1" "supabase==2.34.1")
ensure_python_tools() {
    local venv="$PIER_ROOT/.build/python" stamp
    stamp="$(printf '%s ' "${PIER_PYTHON_TOOLS[@]}")"
    if [ ! -x "$venv/bin/python" ] || [ "$(cat "$venv/.pier-tools" 2>/dev/null)" != "$stamp" ]; then
        command -v python3 >/dev/null 2>&1 || ensure_packages python3
        python3 -m venv --help >/dev/null 2>&1 && python3 -c 'import ensurepip' 2>/dev/null || ensure_packages python3-venv
        log "installing ${PIER_PYTHON_TOOLS[*]} into .build/python"
        rm -rf "$venv"
        python3 -m venv "$venv" || die "python3 -m venv failed"
        "$venv/bin/pip" install -q --disable-pip-version-check "${PIER_PYTHON_TOOLS[@]}" || die "pip could not install ${PIER_PYTHON_TOOLS[*]}"
        printf '%s' "$stamp" >"$venv/.pier-tools"
    fi
    PIER_PYTHON="$venv/bin"
}
