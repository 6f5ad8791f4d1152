# Places next to /api/ships in the same run: cold (a point nobody asked near: the nearest-point query, Geoapify over
# loopback — scripts/bench_upstreams/geoapify.py serving the 16-feature fixture — cleaning, store) and cached (the
# answer in memory: the app's city request, and a phone 30 m away reusing it). Sourced by scripts/bench.
TITLE="Places: /v1/places (cold, cached) next to /api/ships"
STANDIN=(python3 scripts/lib/upstream_fixture_server.py)
CLEAR_TABLES="upstream_answers upstream_quota"
ENVIRONMENT=(PIER_GEOAPIFY_URL="http://127.0.0.1:$STANDIN_PORT" PIER_GEOAPIFY_KEY=bench-key PIER_GEOAPIFY_REQUESTS_PER_SECOND=1000
    PIER_GEOAPIFY_BURST=1000 PIER_GEOAPIFY_CLIENT_SHARE=1 PIER_GEOAPIFY_CREDITS_PER_DAY=100000000)
categories="categories=tourism.attraction,entertainment.museum,leisure.park"
COLD_LABEL="places cold point (nearest query + upstream + clean + store)"
COLD_UNIT="points"
cold_path() { echo "/v1/places?$categories&filter=circle:$(awk -v i="$1" 'BEGIN { printf "%.4f,%.4f", 6.1 + int(i / 10) * 0.3, 45.9 + (i % 10) * 0.1 }'),5000"; }
city="/v1/places?$categories&filter=circle:11.0775,49.4539,5000&limit=50&lang=de"
WARM_PATHS=("$city" "/v1/places?$categories&lat=49.45417&lon=11.0775&radius=5000")
# The first request loads the city's answer (from PostgreSQL after the first round); the 30 m neighbour's first
# request finds the stored point, then answers from memory like the city's.
warm_first() { curl -fs -o /dev/null "http://127.0.0.1:$SERVER_PORT$city" || true; }
warm_label() {
    case "$1" in
        *filter=*) echo "/v1/places (city)" ;;
        *lat=*) echo "/v1/places (30 m away)" ;;
        *) echo "${1%%\?*}" ;;
    esac
}
scenario_after() { printf 'Geoapify calls for all of it: %s\n' "$(curl -fs "http://127.0.0.1:$STANDIN_PORT/_stats")" | tee -a "$report"; }
