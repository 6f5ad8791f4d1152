# The upgrade drill's runtime for scripts/upgrade (PIER_UPGRADE_RUNTIME): replicas are pier processes on loopback
# addresses of their own (127.0.0.N, one port for all, as compose gives each container an address and the same 8080),
# and the name Caddy resolves (PIER_UPSTREAM_HOST) is a hosts file that Caddy alone sees (scripts/upgrade-drill runs it
# with that file mounted over /etc/hosts), kept as Docker's DNS keeps the service's name: a replica is in it from its
# start until it has exited. Reads UPGRADE_DRILL_WORK, where the drill keeps its state:
#   start-replica ADDRESS   starts one pier on ADDRESS (the drill writes it) and prints its pid
#   replicas/N              the pid of the replica on 127.0.0.N
#   hosts                   the file Caddy reads as /etc/hosts; hosts.base its lines without the replicas
#   name                    the replicas' name; port: their port
work=${UPGRADE_DRILL_WORK:?the directory of scripts/upgrade-drill}

# The hosts file with the replicas of replicas/ (written in place: Caddy sees it through a bind mount of this inode).
write_hosts() {
    local file
    {
        cat "$work/hosts.base"
        for file in "$work"/replicas/*; do
            [ -e "$file" ] && echo "127.0.0.$(basename "$file") $(cat "$work/name")"
        done
    } >"$work/hosts.new"
    cat "$work/hosts.new" >"$work/hosts"
}

runtime_replicas() {
    local file
    for file in "$work"/replicas/*; do
        [ -e "$file" ] && kill -0 "$(cat "$file")" 2>/dev/null && basename "$file"
    done
    return 0
}
runtime_build() { :; }
runtime_start_one() {
    local n=2
    # A new address each time (Docker never gives a new container an old one's id).
    while [ -e "$work/replicas/$n" ] || [ -e "$work/stopped-$n" ]; do n=$((n + 1)); done
    "$work/start-replica" "127.0.0.$n" >"$work/replicas/$n"
    write_hosts
    echo "$n"
}
runtime_ready() { curl -fs -o /dev/null --max-time 2 "http://127.0.0.$1:$(cat "$work/port")/health"; }
runtime_stop() {
    local n pids=()
    for n in "$@"; do pids+=("$(cat "$work/replicas/$n")"); done
    kill -TERM "${pids[@]}"
    # Docker's `stop --time 15`: SIGKILL for any still running after 15 s.
    local deadline=$((SECONDS + 15))
    while [ $SECONDS -lt $deadline ] && kill -0 "${pids[@]}" 2>/dev/null; do sleep 0.2; done
    kill -KILL "${pids[@]}" 2>/dev/null || true
    for n in "$@"; do mv "$work/replicas/$n" "$work/stopped-$n"; done
    write_hosts
}
