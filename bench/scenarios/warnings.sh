# FMI's warnings at their largest realistic size — a publication of BENCH_WARNINGS (default 3000) generated warnings
# with 60–400-vertex polygons (scripts/fixtures/gen_fmi_warnings.py --bulk) served by a static file server — read by
# `pier fetch warnings` (timed), then: the lookup at 10,000 random Finnish points (p50/p99, asked and asked again, from
# memory), and /v1/weather warm (48 hours, ten days and the point's warnings in the body) next to /api/ships, with
# the bytes of each. Sourced by scripts/bench.
WARNINGS="${BENCH_WARNINGS:-3000}"
TITLE="FMI warnings: $WARNINGS loaded; lookups at 10,000 random points; /v1/weather warm next to /api/ships"
WARNINGS_DIR="$WORK/warnings"
rm -rf "$WARNINGS_DIR"
python3 scripts/fixtures/gen_fmi_warnings.py --bulk "$WARNINGS" "$WARNINGS_DIR" --base "http://127.0.0.1:$STANDIN_PORT" >/dev/null
rm -f "$WARNINGS_DIR"/feed/atom_*.xml  # the fat feeds Pier does not read
ln -s ../feed "$WARNINGS_DIR/cap/feed"
STANDIN=(python3 -m http.server --bind 127.0.0.1 --directory "$WARNINGS_DIR")
CLEAR_TABLES="weather_warnings"
FMI_STANDIN_PORT=$((PIER_PORT + 10))
ENVIRONMENT=(PIER_FMI_WARNINGS_URL="http://127.0.0.1:$STANDIN_PORT/cap/feed/rss_en-GB.rss" PIER_FMI_URL="http://127.0.0.1:$FMI_STANDIN_PORT/wfs"
    PIER_FETCH_JITTER_S=0 PIER_FETCH_TIMEOUT_S=900)
WEATHER_PATH="/v1/weather?lat=60.17&lon=24.94"

scenario_prepare() {
    python3 scripts/lib/fmi_fixture_server.py "$GEN_FMI" "$FMI_STANDIN_PORT" 200 >"$WORK/warnings-fmi.log" 2>&1 &
    FMI_STANDIN_PID=$!
    sleep 0.5
    local start
    start=$(now_ns)
    "$PIER_BIN" fetch warnings --once >/dev/null
    echo "reading the feed once: $(( ($(now_ns) - start) / 1000000 )) ms for $WARNINGS CAP documents ($(du -sh "$WARNINGS_DIR/cap" | cut -f1))" | tee -a "$report"
}

scenario_after() { kill "$FMI_STANDIN_PID" 2>/dev/null || true; }

scenario_run() {
    PIER_FETCH=on start_server pier
    local i
    for i in $(seq 1 150); do
        curl -fs "http://127.0.0.1:$SERVER_PORT/health" | grep -q '"weather":{"status":"ok"' && break
        sleep 0.2
    done
    python3 scripts/lib/warnings_lookup.py "$SERVER_PORT" 10000 | tee -a "$report"
    local round path rps p50 p99 non2xx bytes
    declare -A SAMPLES=()
    curl -fs -o /dev/null "http://127.0.0.1:$SERVER_PORT$WEATHER_PATH" || true
    for round in 1 2 3; do
        for path in /api/ships "$WEATHER_PATH"; do
            wrk -t2 -c50 -d1s "http://127.0.0.1:$SERVER_PORT$path" >/dev/null 2>&1 || true
            read -r rps p50 p99 non2xx < <(wrk_run "$SERVER_PORT" "$path" 50 "" "")
            bytes=$(curl -fs "http://127.0.0.1:$SERVER_PORT$path" | wc -c)
            SAMPLES[$path]="${SAMPLES[$path]:-} $rps/$p50/$p99/$non2xx/$bytes"
        done
    done
    echo "# /v1/weather's warnings at $WEATHER_PATH: $(curl -fs "http://127.0.0.1:$SERVER_PORT$WEATHER_PATH" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["warnings"]))')" | tee -a "$report"
    for path in /api/ships "$WEATHER_PATH"; do
        read -r rps p50 p99 non2xx bytes < <(tr ' ' '\n' <<<"${SAMPLES[$path]}" | grep . | sort -t/ -k1 -n | sed -n 2p | tr '/' ' ')
        printf '%-30s %-12s %8s %8s %8s %8s %7s  (%s bytes, %s MB/s)\n' "warm-50 ${path%%\?*}" pier "$rps" "$p50" "$p99" "$(peak_rss_mib)" "$non2xx" "$bytes" \
            "$(awk -v r="$rps" -v b="$bytes" 'BEGIN { printf "%.1f", r * b / 1e6 }')" | tee -a "$report"
    done
    stop_server
}
