# Next Wave users at a few hundred stations along the Swiss lakes asking /v1/lake-weather (scripts/lib/
# lake_weather_population.py) for BENCH_POPULATION_S seconds, with the shortest TTL OpenWeather allows (600 s) so that
# the run spans several; the local OpenWeather counts its calls per cell. Not in the default run. Sourced by scripts/bench.
SCENARIO_DEFAULT=no
POPULATION_S="${BENCH_POPULATION_S:-1200}"
TITLE="/v1/lake-weather under a simulated population for ${POPULATION_S} s (TTL 600 s): upstream calls"
STANDIN=(python3 scripts/lib/upstream_fixture_server.py)
SEED_SHIPS=no
CLEAR_TABLES="upstream_answers upstream_quota"
ENVIRONMENT=(PIER_OPENWEATHER_URL="http://127.0.0.1:$STANDIN_PORT/data/2.5" PIER_OPENWEATHER_KEY=bench-key PIER_OPENWEATHER_TTL_S=600)
scenario_run() {
    start_server pier
    python3 scripts/lib/lake_weather_population.py "http://127.0.0.1:$SERVER_PORT" "http://127.0.0.1:$STANDIN_PORT" "$POPULATION_S" \
        "${BENCH_POPULATION_RPS:-20}" "${BENCH_POPULATION_STATIONS:-300}" | tee -a "$report"
    curl -fs "http://127.0.0.1:$SERVER_PORT/health" | python3 -c 'import json, sys; print("health lake-weather:", json.dumps(json.load(sys.stdin)["sources"]["lake-weather"]["quota"]))' | tee -a "$report"
    stop_server
}
