# Sydney departures next to /api/ships in the same run: cold (a stop nobody asked for: TfNSW over loopback,
# scripts/bench_upstreams/tfnsw.py writing 40 departures as the generator does, read, stored, rendered) and warm (a
# stop's answer in memory; re-rendered whenever a departure in it leaves). Sourced by scripts/bench.
TITLE="Sydney departures: /v1/nsw/departures (cold, warm) next to /api/ships"
STANDIN=(python3 scripts/lib/upstream_fixture_server.py)
CLEAR_TABLES="upstream_answers upstream_quota"
ENVIRONMENT=(PIER_NSW_URL="http://127.0.0.1:$STANDIN_PORT/v1/tp" PIER_NSW_API_KEY=bench-key PIER_NSW_REQUESTS_PER_SECOND=1000
    PIER_NSW_BURST=1000 PIER_NSW_CLIENT_SHARE=1 PIER_NSW_REQUESTS_PER_DAY=100000000)
COLD_LABEL="nsw cold stop (upstream + read + store + render)"
COLD_UNIT="stops"
# Numeric ids (what the stand-in generates departures for): since 9390de8 a letter-prefixed id is an unknown stop there,
# and the cold figure had measured 100 remembered 404s.
cold_path() { echo "/v1/nsw/departures?stop=$((2000000 + $1))&mode=bus"; }
WARM_PATHS=("/v1/nsw/departures?stop=G203519&mode=bus" "/v1/nsw/departures?stop=G203519")
warm_label() { [[ "$1" == /v1/nsw/* ]] && echo "${1#/v1/nsw/departures}" || echo "${1%%\?*}"; }
