# A private PostgreSQL cluster for scripts/run (under .data/postgres) and scripts/test (a temporary
# directory): initdb + pg_ctl, listening only on a unix socket inside the cluster directory, trust
# authentication for the one local user, PostGIS available. Source after common.sh.

PG_PORT="${PIER_PG_PORT:-5432}"

# PostgreSQL refuses to run as root; as root the cluster is owned and run by the `postgres` system user.
# Run from / (every path given is absolute): the postgres user may not enter the clone's directory.
pg_as_owner() {
    if [ "$(id -u)" -eq 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}

# start_local_postgres DIR [SOCKET_DIR] : initialises DIR if empty, starts the server (unless it runs already),
# creates database `pier`, and exports DATABASE_URL pointing at it. PIER_PG_STARTED is 1 when this call
# started the server (only then should the caller stop it). With SOCKET_DIR the server also listens on a
# socket there, in a directory other users can reach (the data directory must stay private); exported as
# PIER_PG_SOCKET_DIR.
start_local_postgres() {
    local dir=$1 socket_dir=${2:-} bin
    bin="$(pg_bindir)"
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    PIER_PG_STARTED=0
    if [ "$(id -u)" -eq 0 ]; then
        chown postgres:postgres "$dir"
        # The server user must be able to reach the directory through its parents: say which ones change.
        local parent=$dir closed=()
        while parent=$(dirname "$parent"); [ "$parent" != / ]; do
            [ "$(( 0$(stat -c %a "$parent") % 2 ))" -eq 1 ] || closed+=("$parent")
        done
        if [ ${#closed[@]} -gt 0 ]; then
            log "letting the postgres user reach $dir: chmod o+x ${closed[*]}"
            chmod o+x "${closed[@]}"
        fi
    fi
    local sockets="$dir"
    if [ -n "$socket_dir" ]; then
        mkdir -p "$socket_dir"
        socket_dir="$(cd "$socket_dir" && pwd)"
        chmod 755 "$socket_dir"
        [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$socket_dir"
        sockets="$dir,$socket_dir"
        export PIER_PG_SOCKET_DIR="$socket_dir"
    fi
    if [ ! -f "$dir/PG_VERSION" ]; then
        log "initialising a local PostgreSQL cluster in $dir"
        pg_as_owner "$bin/initdb" -D "$dir" -U pier --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir.initdb.log" 2>&1 \
            || { cat "$dir.initdb.log" >&2; die "initdb failed"; }
        rm -f "$dir.initdb.log"
    fi
    if ! pg_as_owner "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
        # The settings go into the cluster's own configuration so that a plain `pg_ctl start` (or a
        # restart by a test) brings the server back exactly as it was.
        cat >"$dir/pier.conf" <<CONF
listen_addresses = ''
unix_socket_directories = '$sockets'
port = $PG_PORT
fsync = ${PIER_PG_FSYNC:-on}
max_connections = 200
CONF
        grep -q "include_if_exists = 'pier.conf'" "$dir/postgresql.conf" || echo "include_if_exists = 'pier.conf'" >>"$dir/postgresql.conf"
        [ "$(id -u)" -eq 0 ] && chown postgres:postgres "$dir/pier.conf"
        pg_as_owner "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 start >/dev/null \
            || { tail -n 20 "$dir/server.log" >&2; die "PostgreSQL did not start"; }
        PIER_PG_STARTED=1
    else
        log "PostgreSQL in $dir is running already (started elsewhere): using it, and leaving it running"
    fi
    pg_as_owner "$bin/psql" -h "$dir" -p "$PG_PORT" -U pier -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'pier'" | grep -q 1 \
        || pg_as_owner "$bin/createdb" -h "$dir" -p "$PG_PORT" -U pier pier
    export DATABASE_URL="postgresql:///pier?host=$dir&port=$PG_PORT&user=pier"
    # Tests that restart the server find it through these.
    export PIER_PG_CLUSTER_DIR="$dir" PIER_PG_BINDIR="$bin" PIER_PG_PORT="$PG_PORT"
}

# stop_local_postgres DIR
stop_local_postgres() {
    local dir=$1
    [ -f "$dir/PG_VERSION" ] || return 0
    pg_as_owner "$(pg_bindir)/pg_ctl" -D "$dir" -m fast -w stop >/dev/null 2>&1 || true
}
