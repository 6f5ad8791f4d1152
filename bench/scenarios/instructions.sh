# Instructions per request (issue 67), counted by callgrind: the same figure on a busy or a quiet machine, so it needs no
# quiet hour and no interleaving. pier's release build (`--demo`: every upstream answered by the bundled recordings, one
# event loop) beside nginx serving /api/ships' bytes as a static file (one worker, no master) and a C server that writes
# a fixed reply without parsing anything (bench/tools/fixed_reply.c: the limit). Each row: 200 requests to warm up, then
# instrumentation on for 2,000 requests (500 with `Connection: close`), `totals:` of the dump divided by the requests.
# Facts this relies on: valgrind 3.19 cannot read the DWARF 5 Swift's clang writes, so a copy stripped of debug
# information runs (symbols stay); valgrind names its control pipe after $HOST, so the servers and callgrind_control run
# with the same HOST. Only user space is counted: the C limit's few dozen instructions are its loop around read(2) and
# write(2); the kernel's work, the same for every server, is not in any figure. Not in the default run (a few minutes:
# everything runs some fifty times slower under valgrind). docs/benchmarks.md explains the figure.
SCENARIO_DEFAULT=no
SEED_SHIPS=no
TITLE="Instructions per request (callgrind, user space): pier beside nginx and a C server that parses nothing"

instructions_counted() { # PID PORT COUNT [request_loop.py options] PATH -> instructions per request
    local pid=$1 port=$2 count=$3 out
    shift 3
    python3 scripts/lib/request_loop.py "$port" 200 "$@" || return 1
    HOST=127.0.0.1 callgrind_control -z "$pid" >/dev/null 2>&1
    HOST=127.0.0.1 callgrind_control -i on "$pid" >/dev/null 2>&1
    python3 scripts/lib/request_loop.py "$port" "$count" "$@" || return 1
    HOST=127.0.0.1 callgrind_control -i off "$pid" >/dev/null 2>&1
    HOST=127.0.0.1 callgrind_control -d "$pid" >/dev/null 2>&1
    sleep 0.3
    out=$(ls -t "$WORK"/callgrind.out.*.* | head -1)
    awk -v n="$count" '/^totals:/ { printf "%d", $2 / n }' "$out"
    rm -f "$WORK"/callgrind.out.*.*
}

under_callgrind() { # NAME COMMAND... (in the background, with HOST=127.0.0.1; sets CALLGRIND_PID)
    local name=$1
    shift
    HOST=127.0.0.1 valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$WORK/callgrind.out.$name" "$@" \
        >"$WORK/$name.callgrind.log" 2>&1 &
    CALLGRIND_PID=$!
    SERVER_PID=$CALLGRIND_PID  # the harness stops it should the scenario fail
}

wait_for() { # PORT PATH
    local i
    for i in $(seq 1 600); do
        curl -fs -o /dev/null "http://127.0.0.1:$1$2" && return 0
        sleep 0.2
    done
    die "nothing answered http://127.0.0.1:$1$2 under valgrind (see $WORK)"
}

ROWS=()
declare -A PIER_IR=() NGINX_IR=() LIMIT_IR=()
measure() { # TABLE PID PORT NAME COUNT [request_loop.py options] PATH
    local -n table=$1
    local pid=$2 port=$3 name=$4
    shift 4
    [[ " ${ROWS[*]} " == *" $name "* ]] || ROWS+=("$name")
    table[$name]=$(instructions_counted "$pid" "$port" "$@") || table[$name]=failed
}

scenario_run() {
    ensure_packages valgrind nginx-light gcc
    local nginx_port=$((PIER_PORT + 7)) limit_port=$((PIER_PORT + 8)) pid
    local iphone=(--header "Accept: application/json" --header "Accept-Language: de-CH,de;q=0.9" --header "Accept-Encoding: gzip, deflate, br"
        --header "User-Agent: NextWave/2.3 CFNetwork/1568.100.1 Darwin/24.0.0" --header "Connection: keep-alive" --header "Priority: u=3, i")
    strip --strip-debug -o "$WORK/pier" "$PIER_BIN"
    cc -O2 -o "$WORK/fixed_reply" bench/tools/fixed_reply.c

    # The demo's data first, fetched from its recordings by a pier not under valgrind; the counted one then serves it with
    # fetching off, so no background run lands in a count (one would add thousands of instructions to every request).
    pier_environment
    "${PIER_ENV[@]}" DATABASE_URL="$DATABASE_URL" LOG_LEVEL=error HOST=127.0.0.1 "$PIER_BIN" serve --demo --port "$PIER_PORT" \
        >"$WORK/pier-demo.log" 2>&1 &
    pid=$!
    SERVER_PID=$pid  # the harness stops it should the scenario fail
    local path
    for path in /api/ships /api/water-temp "/v1/weather?lat=60.17&lon=24.94" /v1/lake-temperatures; do wait_for "$PIER_PORT" "$path"; done
    kill "$pid"; wait "$pid" 2>/dev/null || true
    # pier without the caller's PIER_* settings (env runs valgrind in its own process: the pid is valgrind's). Swift
    # seeds its hashing per process, so a dictionary's probe lengths, and a few hundred instructions a request, moved
    # from one run to the next: the counted pier hashes with a fixed seed (never so in service: a fixed seed invites
    # collision floods).
    "${PIER_ENV[@]}" DATABASE_URL="$DATABASE_URL" PIER_EVENT_LOOPS=1 LOG_LEVEL=error PIER_FETCH=off HOST=127.0.0.1 SWIFT_DETERMINISTIC_HASHING=1 \
        valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$WORK/callgrind.out.pier" \
        "$WORK/pier" serve --demo --port "$PIER_PORT" >"$WORK/pier.callgrind.log" 2>&1 &
    pid=$!
    SERVER_PID=$pid
    wait_for "$PIER_PORT" /api/ships
    curl -fs "http://127.0.0.1:$PIER_PORT/api/ships" -o "$WORK/ships.json"
    local etag key access wave
    etag=$(curl -fsI "http://127.0.0.1:$PIER_PORT/api/ships" | awk -F': ' 'tolower($1) == "etag" { sub(/\r$/, "", $2); print $2 }')
    key=$(python3 scripts/lib/supabase_anon_key.py "$(grep -o 'secret = "[^"]*"' Sources/NextWave/DemoCommunity.swift | cut -d'"' -f2)")
    access=$(curl -fs -X POST -H "apikey: $key" -H "Authorization: Bearer $key" -H 'Content-Type: application/json' -d '{}' \
        "http://127.0.0.1:$PIER_PORT/auth/v1/signup" | python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')
    wave=$(curl -fs -H "apikey: $key" -H "Authorization: Bearer $access" "http://127.0.0.1:$PIER_PORT/rest/v1/wave_checkins?select=wave_id&limit=1" \
        | python3 -c 'import json, sys; rows = json.load(sys.stdin); print(rows[0]["wave_id"] if rows else "none")')
    local rider=(--method POST --header "apikey: $key" --header "Authorization: Bearer $access" --header "Content-Type: application/json")

    local p=("$pid" "$PIER_PORT")
    measure PIER_IR "${p[@]}" ships 2000 /api/ships
    measure PIER_IR "${p[@]}" ships-close 500 --close /api/ships
    measure PIER_IR "${p[@]}" ships-iphone 2000 "${iphone[@]}" /api/ships
    measure PIER_IR "${p[@]}" ships-iphone-304 2000 --status 304 --header "If-None-Match: $etag" "${iphone[@]}" /api/ships
    measure PIER_IR "${p[@]}" health 2000 /health
    measure PIER_IR "${p[@]}" weather-point 2000 "/v1/weather?lat=60.17&lon=24.94"
    measure PIER_IR "${p[@]}" weather-place 2000 "/v1/weather?place=Helsinki"
    measure PIER_IR "${p[@]}" warnings 2000 "/v1/warnings?lat=60.17&lon=24.94"
    measure PIER_IR "${p[@]}" stationboard 2000 "/v1/stationboard?id=8503651&limit=30"
    measure PIER_IR "${p[@]}" nsw 2000 "/v1/nsw/departures?stop=G203519&mode=bus"
    measure PIER_IR "${p[@]}" places 2000 "/v1/places?categories=tourism.attraction,entertainment.museum,leisure.park&filter=circle:11.0775,49.4539,5000"
    measure PIER_IR "${p[@]}" geocode 2000 "/v1/geocode?text=N%C3%BCrnberg&lang=de"
    measure PIER_IR "${p[@]}" wikipedia 2000 "/v1/wikipedia/de/summary/Sch%C3%B6ner%20Brunnen"
    measure PIER_IR "${p[@]}" lake-temperatures 2000 /v1/lake-temperatures
    measure PIER_IR "${p[@]}" sun 2000 "/v1/sun?lat=47.37&lon=8.54"
    # /api/ships asked with the community's head (its key and a rider's token: ~700 bytes to parse), the yardstick for
    # the two functions below: what a call costs beyond reading such a head.
    measure PIER_IR "${p[@]}" ships-community-head 2000 --header "apikey: $key" --header "Authorization: Bearer $access" --header "Content-Type: application/json" /api/ships
    measure PIER_IR "${p[@]}" leaderboard 2000 "${rider[@]}" --body '{"p_limit":50}' /rest/v1/rpc/wave_leaderboard
    measure PIER_IR "${p[@]}" checkin-counts 2000 "${rider[@]}" --body "{\"wave_ids\":[\"$wave\"]}" /rest/v1/rpc/wave_checkin_counts
    kill "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    SERVER_PID=""

    # nginx: the same body as a static file (scripts/bench's nginx_serving_ships).
    nginx_serving_ships "$nginx_port"
    under_callgrind nginx /usr/sbin/nginx -c "$WORK/nginx/nginx.conf" -p "$WORK/nginx"
    wait_for "$nginx_port" /api/ships
    measure NGINX_IR "$CALLGRIND_PID" "$nginx_port" ships 2000 /api/ships
    measure NGINX_IR "$CALLGRIND_PID" "$nginx_port" ships-close 500 --close /api/ships
    measure NGINX_IR "$CALLGRIND_PID" "$nginx_port" ships-iphone 2000 "${iphone[@]}" /api/ships
    kill "$CALLGRIND_PID"; wait "$CALLGRIND_PID" 2>/dev/null || true
    SERVER_PID=""

    # The limit: the same response's bytes written for every request, nothing parsed.
    { printf 'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n' "$(wc -c <"$WORK/ships.json")"; cat "$WORK/ships.json"; } \
        >"$WORK/reply.http"
    under_callgrind limit "$WORK/fixed_reply" "$limit_port" "$WORK/reply.http"
    wait_for "$limit_port" /api/ships
    measure LIMIT_IR "$CALLGRIND_PID" "$limit_port" ships 2000 /api/ships
    measure LIMIT_IR "$CALLGRIND_PID" "$limit_port" ships-close 500 --close /api/ships
    kill "$CALLGRIND_PID"; wait "$CALLGRIND_PID" 2>/dev/null || true
    SERVER_PID=""

    printf '%-22s %10s %10s %10s %10s %10s\n' "per request" pier nginx "C limit" "pier/nginx" "/ships" | tee -a "$report"
    local name
    for name in "${ROWS[@]}"; do
        printf '%-22s %10s %10s %10s %10s %10s\n' "$name" "${PIER_IR[$name]}" "${NGINX_IR[$name]:--}" "${LIMIT_IR[$name]:--}" \
            "$(awk -v p="${PIER_IR[$name]}" -v n="${NGINX_IR[$name]:-0}" 'BEGIN { if (n > 0 && p > 0) printf "%.2f", p / n; else print "-" }')" \
            "$(awk -v p="${PIER_IR[$name]}" -v s="${PIER_IR[ships]}" 'BEGIN { if (s > 0 && p > 0) printf "%.2f", p / s; else print "-" }')" | tee -a "$report"
    done
}
