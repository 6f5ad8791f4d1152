# Trip Planner widgets (scripts/lib/nsw_population.py): 10,000 over 300 stops refreshing every 2 minutes, for
# BENCH_NSW_POPULATION_S seconds, with the default limits (4 a second, 50,000 a day). The daily quota is scaled to the
# part of the Sydney day left when the run starts, so the run sees the spreading a whole day would see from midnight:
# TTL = watched stops x seconds left / calls left = 300 x 86,400 / 50,000 s whenever it runs. Not in the default run.
# Sourced by scripts/bench.
SCENARIO_DEFAULT=no
POPULATION_S="${BENCH_NSW_POPULATION_S:-1200}"
left=$(python3 -c 'import datetime as d, zoneinfo as z; n = d.datetime.now(z.ZoneInfo("Australia/Sydney")); m = (n + d.timedelta(days=1)).replace(hour=0, minute=0, second=0, microsecond=0); print(int((m - n).total_seconds()))')
per_day=$(( 50000 * left / 86400 ))
TITLE="/v1/nsw/departures under 10,000 simulated widgets over 300 stops for ${POPULATION_S} s (quota ${per_day} for the ${left} s left of the Sydney day = 50,000 a day)"
STANDIN=(python3 scripts/lib/upstream_fixture_server.py)
SEED_SHIPS=no
CLEAR_TABLES="upstream_answers upstream_quota"
ENVIRONMENT=(PIER_NSW_URL="http://127.0.0.1:$STANDIN_PORT/v1/tp" PIER_NSW_API_KEY=bench-key PIER_NSW_REQUESTS_PER_DAY="$per_day")
scenario_run() {
    start_server pier
    python3 scripts/lib/nsw_population.py "http://127.0.0.1:$SERVER_PORT" "http://127.0.0.1:$STANDIN_PORT" "$POPULATION_S" \
        "${BENCH_NSW_WIDGETS:-10000}" "${BENCH_NSW_STOPS:-300}" "${BENCH_NSW_INTERVAL_S:-120}" | tee -a "$report"
    curl -fs "http://127.0.0.1:$SERVER_PORT/health" | python3 -c 'import json, sys; s = json.load(sys.stdin)["sources"]["nsw"]; print("health nsw:", json.dumps({k: s[k] for k in ("quota", "ttl_s", "paused_s", "cache")}))' | tee -a "$report"
    stop_server
}
