# A private PostgreSQL cluster for scripts/run (under .data/postgres) and scripts/test (a temporary
# directory): initdb + pg_ctl, listening only on a unix socket inside the cluster directory, trust
# authentication for the one local user, PostGIS available. Source after common.sh.

PG_PORT="${PIER_PG_PORT:-5432}"

# PostgreSQL refuses to run as root; as root the cluster is owned and run by the `postgres` system user.
pg_as_owner() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# start_local_postgres DIR : initialises DIR if empty, starts the server, creates database `pier`,
# and exports DATABASE_URL pointing at it.
start_local_postgres() {
    local dir=$1 bin
    bin="$(pg_bindir)"
    mkdir -p "$dir"
    dir="$(cd "$dir" && pwd)"
    if [ "$(id -u)" -eq 0 ]; then
        chown postgres:postgres "$dir"
        # The server user must be able to reach the directory through its parents.
        local parent=$dir
        while parent=$(dirname "$parent"); [ "$parent" != / ]; do chmod o+x "$parent" 2>/dev/null || true; done
    fi
    if [ ! -f "$dir/PG_VERSION" ]; then
        log "initialising a local PostgreSQL cluster in $dir"
        pg_as_owner "$bin/initdb" -D "$dir" -U pier --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$dir.initdb.log" 2>&1 \
            || { cat "$dir.initdb.log" >&2; die "initdb failed"; }
        rm -f "$dir.initdb.log"
    fi
    if ! pg_as_owner "$bin/pg_ctl" -D "$dir" status >/dev/null 2>&1; then
        pg_as_owner "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -t 60 \
            -o "-c listen_addresses='' -k '$dir' -p $PG_PORT -c fsync=${PIER_PG_FSYNC:-on} -c max_connections=200" start >/dev/null \
            || { tail -n 20 "$dir/server.log" >&2; die "PostgreSQL did not start"; }
    fi
    pg_as_owner "$bin/psql" -h "$dir" -p "$PG_PORT" -U pier -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname = 'pier'" | grep -q 1 \
        || pg_as_owner "$bin/createdb" -h "$dir" -p "$PG_PORT" -U pier pier
    export DATABASE_URL="postgresql:///pier?host=$dir&port=$PG_PORT&user=pier"
    export PIER_PG_CLUSTER_DIR="$dir"
}

# stop_local_postgres DIR
stop_local_postgres() {
    local dir=$1
    [ -f "$dir/PG_VERSION" ] || return 0
    pg_as_owner "$(pg_bindir)/pg_ctl" -D "$dir" -m fast -w stop >/dev/null 2>&1 || true
}
