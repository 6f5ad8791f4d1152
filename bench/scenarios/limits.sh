# The wall clock beside the limits (issue 67 item 3): pier, the Hummingbird peer, nginx (one worker, no master, the same
# bytes as a static file) and a C server that writes a fixed reply without parsing anything (bench/tools/fixed_reply.c,
# epoll, one thread) each on CPU 1 with wrk (-t1) on CPU 0, every one serving /api/ships' bytes, at 50 and 256 keep-alive
# connections and 50 with `Connection: close`. The machine is noisy: each round runs every server once, one after the
# other, and the median of BENCH_ROUNDS rounds (default 3) is reported with pier's ratios to the others. Not in the
# default run (a minute per round at BENCH_DURATION=5): `BENCH_SECTIONS=limits scripts/bench`.
SCENARIO_DEFAULT=no
TITLE="The wall clock beside the limits: pier, the peer, nginx and a C server that parses nothing, one core each"

scenario_run() {
    ensure_packages nginx-light gcc
    local rounds=${BENCH_ROUNDS:-3} nginx_port=$((PIER_PORT + 7)) limit_port=$((PIER_PORT + 8)) close_port=$((PIER_PORT + 9))
    local pids=()
    # The servers this scenario starts beside pier stop with it, whatever happens.
    trap 'kill "${pids[@]}" 2>/dev/null || true' EXIT
    cc -O2 -o "$WORK/fixed_reply" bench/tools/fixed_reply.c
    SERVER_PREFIX="taskset -c 1" PIER_FETCH=off start_server pier
    pids+=("$SERVER_PID")
    curl -fs "http://127.0.0.1:$PIER_PORT/api/ships" -o "$WORK/ships.json"
    local bytes
    bytes=$(wc -c <"$WORK/ships.json")

    taskset -c 1 "$PEER_BIN" "$PEER_PORT" "$WORK/ships.json" >"$WORK/peer.log" 2>&1 &
    pids+=($!)
    nginx_serving_ships "$nginx_port"
    taskset -c 1 /usr/sbin/nginx -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx" &
    pids+=($!)
    { printf 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n' "$bytes"; cat "$WORK/ships.json"; } >"$WORK/reply.http"
    { printf 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n' "$bytes"; cat "$WORK/ships.json"; } >"$WORK/reply-close.http"
    taskset -c 1 "$WORK/fixed_reply" "$limit_port" "$WORK/reply.http" &
    pids+=($!)
    taskset -c 1 "$WORK/fixed_reply" "$close_port" "$WORK/reply-close.http" close &
    pids+=($!)
    local server url
    for url in "http://127.0.0.1:$PEER_PORT/bench/payload" "http://127.0.0.1:$nginx_port/api/ships" "http://127.0.0.1:$limit_port/" "http://127.0.0.1:$close_port/"; do
        for _ in $(seq 1 200); do curl -fs -o /dev/null "$url" && break; sleep 0.05; done
        [ "$(curl -fs "$url" | wc -c)" = "$bytes" ] || die "$url does not serve /api/ships' $bytes bytes"
    done

    echo "# /api/ships' $bytes bytes from each server on CPU 1, wrk -t1 on CPU 0, ${DURATION} s a run, median of $rounds interleaved rounds" | tee -a "$report"
    declare -A SAMPLES=()
    local mode connections header round rps p50 p99 non2xx port path
    for round in $(seq 1 "$rounds"); do
        for mode in keepalive-50 keepalive-256 close-50; do
            connections=${mode##*-}
            header=""
            [ "${mode%%-*}" = close ] && header="Connection: close"
            for server in pier peer nginx limit; do
                case "$server" in
                    pier) port=$PIER_PORT path=/api/ships ;;
                    peer) port=$PEER_PORT path=/bench/payload ;;
                    nginx) port=$nginx_port path=/api/ships ;;
                    limit) port=$([ -n "$header" ] && echo "$close_port" || echo "$limit_port") path=/ ;;
                esac
                # A second's warm-up, then the run.
                taskset -c 0 wrk -t1 -c"$connections" -d1s ${header:+-H "$header"} "http://127.0.0.1:$port$path" >/dev/null 2>&1 || true
                read -r rps p50 p99 non2xx < <(WRK_PREFIX="taskset -c 0" WRK_THREADS=1 wrk_run "$port" "$path" "$connections" "$header" "" 2>/dev/null \
                    || echo "0 0 0 0")
                SAMPLES[$mode/$server]="${SAMPLES[$mode/$server]:-} $rps/$p50/$p99/$non2xx"
            done
        done
    done
    printf '%-16s %-8s %10s %9s %9s %7s\n' mode server req/s p50_ms p99_ms non2xx | tee -a "$report"
    declare -A MEDIAN=()
    for mode in keepalive-50 keepalive-256 close-50; do
        for server in pier peer nginx limit; do
            read -r rps p50 p99 non2xx < <(tr ' ' '\n' <<<"${SAMPLES[$mode/$server]}" | grep . | sort -t/ -k1 -n | sed -n "$(((rounds + 1) / 2))p" | tr '/' ' ')
            MEDIAN[$mode/$server]=$rps
            printf '%-16s %-8s %10s %9s %9s %7s\n' "$mode" "$server" "$rps" "$p50" "$p99" "$non2xx" | tee -a "$report"
        done
        awk -v m="$mode" -v p="${MEDIAN[$mode/pier]}" -v l="${MEDIAN[$mode/limit]}" -v n="${MEDIAN[$mode/nginx]}" -v h="${MEDIAN[$mode/peer]}" \
            'BEGIN { printf "%-16s pier/C limit %.2f, pier/nginx %.2f, pier/peer %.2f\n", m, (l > 0 ? p / l : 0), (n > 0 ? p / n : 0), (h > 0 ? p / h : 0) }' | tee -a "$report"
    done
    kill "${pids[@]}" 2>/dev/null || true
    wait "${pids[@]}" 2>/dev/null || true
    SERVER_PID=""
    trap - EXIT
}
