# The attacks of docs/operations/keys-and-budgets.md ("Fair shares") with the shipped limits, one replica, Geoapify and TfNSW served by
# scripts/lib/upstream_fixture_server.py: one address asking new places, a rotating left-most X-Forwarded-For, one
# IPv6 /48, random stop ids from one /24 (scripts/lib/attacks.py: what each spent and what a new user then got), and a
# flood of random cold places from one address measured beside /api/ships (a refusal should cost what a hit costs).
# Sourced by scripts/bench.
TITLE="Fair shares: attacks with the shipped limits (BENCH_ATTACK_S=${BENCH_ATTACK_S:-20} s each), and a flood beside /api/ships"
STANDIN=(python3 scripts/lib/upstream_fixture_server.py)
CLEAR_TABLES="upstream_answers upstream_quota upstream_share"
ENVIRONMENT=(PIER_GEOAPIFY_URL="http://127.0.0.1:$STANDIN_PORT" PIER_GEOAPIFY_KEY=bench-key
    PIER_NSW_URL="http://127.0.0.1:$STANDIN_PORT/v1/tp" PIER_NSW_API_KEY=bench-key)
scenario_run() {
    start_server pier
    python3 scripts/lib/attacks.py "http://127.0.0.1:$SERVER_PORT" "http://127.0.0.1:$STANDIN_PORT" "${BENCH_ATTACK_S:-20}" | tee -a "$report"
    # The flood: 50 connections of random cold places points from one address (its share long spent: each is
    # refused from memory, on the event loop), then /api/ships alone; a new user's new city during the flood.
    local city rps p50 p99 non2xx
    wrk_run "$SERVER_PORT" /v1/places 50 "" scripts/lib/flood.lua >"$WORK/flood.txt" &
    local flood=$!
    sleep $((DURATION / 2))
    city=$(curl -s -o /dev/null -w '%{http_code} %{time_total}' -H 'X-Forwarded-For: 192.0.2.200' \
        "http://127.0.0.1:$SERVER_PORT/v1/geocode?text=Luzern&lang=de")
    wait "$flood" || true
    read -r rps p50 p99 non2xx <"$WORK/flood.txt"
    local flooded=$rps
    printf '%-30s %-12s %8s %8s %8s %8s %7s\n' "flood-50 random cold places" pier "$rps" "$p50" "$p99" "-" "$non2xx" | tee -a "$report"
    curl -fs -o /dev/null -H 'X-Forwarded-For: 192.0.2.201' "http://127.0.0.1:$SERVER_PORT/v1/places?lat=47.05000&lon=8.30000&radius=1000&categories=tourism.attraction"
    read -r rps p50 p99 non2xx < <(FLOOD_FIXED=1 wrk_run "$SERVER_PORT" /v1/places 50 "" scripts/lib/flood.lua)
    printf '%-30s %-12s %8s %8s %8s %8s %7s\n' "hit-50 one cached place" pier "$rps" "$p50" "$p99" "-" "$non2xx" | tee -a "$report"
    # A refusal should cost what a hit costs (issue 54: at least 0.9 of a cached places answer).
    printf 'refusal/hit: %s (the flood of refused cold places against one cached place)\n' \
        "$(awk -v f="$flooded" -v h="$rps" 'BEGIN { printf "%.2f", (h > 0 ? f / h : 0) }')" | tee -a "$report"
    read -r rps p50 p99 non2xx < <(wrk_run "$SERVER_PORT" /api/ships 50 "" "")
    printf '%-30s %-12s %8s %8s %8s %8s %7s\n' "warm-50 /api/ships" pier "$rps" "$p50" "$p99" "-" "$non2xx" | tee -a "$report"
    printf 'during the flood a new user geocoded a new city: HTTP %s in %s s\n' ${city} | tee -a "$report"
    stop_server
}
