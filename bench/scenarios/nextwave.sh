# Next Wave's routes next to /api/ships in the same run: /v1/sun (a pure calculation), /v1/lake-weather warm (a cell
# in memory) and cold (OpenWeather over loopback, scripts/bench_upstreams/openweather.py writing a forecast per point
# as the generator does), /v1/lake-temperatures (27 lakes from memory). Sourced by scripts/bench.
TITLE="Next Wave: /v1/sun, /v1/lake-weather (cold, warm) and /v1/lake-temperatures next to /api/ships"
STANDIN=(python3 scripts/lib/upstream_fixture_server.py)
CLEAR_TABLES="upstream_answers alplakes_lakes upstream_quota"
ENVIRONMENT=(PIER_OPENWEATHER_URL="http://127.0.0.1:$STANDIN_PORT/data/2.5" PIER_OPENWEATHER_KEY=bench-key
    PIER_OPENWEATHER_REQUESTS_PER_MINUTE=1000000 PIER_OPENWEATHER_BURST=100000 PIER_OPENWEATHER_CLIENT_SHARE=1
    PIER_OPENWEATHER_REQUESTS_PER_DAY=100000000 PIER_ALPLAKES_URL="http://127.0.0.1:$STANDIN_PORT" PIER_ALPLAKES_PAUSE_S=0)
# All 27 lakes into PostgreSQL once; the servers load them at start.
scenario_prepare() { "$PIER_BIN" fetch alplakes --once >/dev/null; }
COLD_LABEL="lake-weather cold cell (upstream + check + store + render)"
COLD_UNIT="cells"
cold_path() {
    echo "/v1/lake-weather?lat=$(awk -v i="$1" 'BEGIN { printf "%.3f", 45.9 + (i % 10) * 0.1 }')&lon=$(awk -v i="$1" 'BEGIN { printf "%.3f", 6.1 + int(i / 10) * 0.3 }')"
}
WARM_PATHS=("/v1/sun?lat=47.37&lon=8.54&date=2026-07-04" "/v1/lake-weather?lat=47.37&lon=8.54" /v1/lake-temperatures)
