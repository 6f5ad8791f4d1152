# A refusal costs what a hit costs (issue 40): one client whose daily share of Geoapify is spent floods random cold
# /v1/places points (each refused from memory, on the event loop), and the same wrk script asks one cached place —
# the two in turns, three rounds, on one event loop pinned to CPU 1 with wrk pinned to CPU 0 (the shared cores would
# measure the scheduler). Prints each round and the median ratio flood/hit. Not in the default run.
SCENARIO_DEFAULT=no
TITLE="A refusal beside a hit: cold places from a spent address vs one cached place, one pinned loop"
STANDIN=(python3 scripts/lib/upstream_fixture_server.py)
SEED_SHIPS=no
CLEAR_TABLES="upstream_answers upstream_quota upstream_share"
# 20 credits a day: an address's 5 % is one call, so its second new point is refused from memory.
ENVIRONMENT=(PIER_GEOAPIFY_URL="http://127.0.0.1:$STANDIN_PORT" PIER_GEOAPIFY_KEY=bench-key PIER_GEOAPIFY_CREDITS_PER_DAY=20
    PIER_EVENT_LOOPS=1)
scenario_run() {
    SERVER_PREFIX="taskset -c 1"; WRK_PREFIX="taskset -c 0"; WRK_THREADS=1
    PIER_FETCH=off start_server pier
    local base="http://127.0.0.1:$SERVER_PORT/v1/places?radius=1000&categories=tourism.attraction"
    curl -s -o /dev/null -H 'X-Forwarded-For: 203.0.113.66' "$base&lat=41.00000&lon=3.00000"
    curl -s -o /dev/null -H 'X-Forwarded-For: 203.0.113.66' "$base&lat=41.10000&lon=3.00000"
    curl -fs -o /dev/null -H 'X-Forwarded-For: 192.0.2.201' "$base&lat=47.05000&lon=8.30000"
    local round rps p50 p99 non2xx flood hit ratios=()
    for round in 1 2 3; do
        read -r rps p50 p99 non2xx < <(wrk_run "$SERVER_PORT" /v1/places 50 "" scripts/lib/flood.lua)
        flood=$rps
        printf '%-30s %-12s %8s %8s %8s %8s %7s\n' "flood-50 refused places" pier "$rps" "$p50" "$p99" "-" "$non2xx" | tee -a "$report"
        read -r rps p50 p99 non2xx < <(FLOOD_FIXED=1 wrk_run "$SERVER_PORT" /v1/places 50 "" scripts/lib/flood.lua)
        hit=$rps
        printf '%-30s %-12s %8s %8s %8s %8s %7s\n' "hit-50 one cached place" pier "$rps" "$p50" "$p99" "-" "$non2xx" | tee -a "$report"
        ratios+=("$(awk -v f="$flood" -v h="$hit" 'BEGIN { printf "%.2f", (h > 0 ? f / h : 0) }')")
    done
    printf 'refusal/hit per round: %s; median %s\n' "${ratios[*]}" "$(printf '%s\n' "${ratios[@]}" | sort -n | sed -n 2p)" | tee -a "$report"
    stop_server
    SERVER_PREFIX=""; WRK_PREFIX=""; WRK_THREADS=2
}
