# Live check-ins at scale (PIER_NEXTWAVE=on): BENCH_REALTIME_SOCKETS subscribed sockets on one pier (the apps'
# channel, protocol 2.0.0), held by bench/tools/RealtimeLoad.swift (poll, one thread per process); pier's memory per
# idle subscribed socket; its CPU while every socket heartbeats every 25 s (two readings, see scenario_run); BENCH_REALTIME_EVENTS single check-ins
# (distinct waves, 2 s apart) delivered to every socket, their latency from the INSERT's start to each arrival; a burst
# of 20 waves in one statement fanned out to all (deliveries a second). Anchor: Supabase Realtime caps a 2-vCPU instance
# at 30,000 connections; its database-broadcast run served 80,000 users at 10,000 messages/s, p99 159 ms, on a cluster.
# Goals (issue 55): 20,000 sockets, at most 16 KB a socket, p99 at most 500 ms, heartbeats under 5 % of a core.
# The sockets are bounded by RLIMIT_NOFILE: pier holds one descriptor per socket, and where the hard limit cannot be
# raised (no CAP_SYS_RESOURCE: 20,000 on the development machines) the default is what fits under it.
TITLE="Live check-ins: subscribed sockets, memory, heartbeats, delivery and fan-out"
SCENARIO_DEFAULT=no
SEED_SHIPS=no
CLEAR_TABLES="nextwave_checkins nextwave_users"
SECRET="bench-jwt-secret-of-at-least-thirty-two-characters"
LIMIT=$(ulimit -Hn)
[ "$LIMIT" = unlimited ] && LIMIT=1048576
SOCKETS="${BENCH_REALTIME_SOCKETS:-$(( LIMIT - 100 < 20000 ? LIMIT - 100 : 20000 ))}"
EVENTS="${BENCH_REALTIME_EVENTS:-5}"
# Every socket comes from loopback (one client, one network), and sockets may take four fifths of the connections.
ENVIRONMENT=(PIER_NEXTWAVE=on PIER_NEXTWAVE_JWT_SECRET="$SECRET" PIER_MAX_CONNECTIONS=$((SOCKETS * 5 / 4 + 1000))
             PIER_WEBSOCKET_MAX_SOCKETS=$((SOCKETS + 1000)) PIER_WEBSOCKET_SOCKETS_PER_CLIENT=$((SOCKETS + 1000))
             PIER_WEBSOCKET_SOCKETS_PER_NETWORK=$((SOCKETS + 1000)))
ANON="$(python3 scripts/lib/supabase_anon_key.py "$SECRET")"

scenario_prepare() {
    "$(pg_bindir)/psql" -q "$DATABASE_URL" -v ON_ERROR_STOP=1 -c "INSERT INTO nextwave_users (id) VALUES ('00000000-0000-4000-8000-00000000bec4')"
}

# cpu_ns PID: nanoseconds every thread of PID ran so far (the scheduler's own accounting, /proc/…/schedstat).
cpu_ns() { cat /proc/"$1"/task/*/schedstat | awk '{ s += $1 } END { printf "%.0f", s }'; }
rss_kib() { awk '/VmRSS/ { print $2 }' "/proc/$1/status"; }

scenario_run() {
    log "building the load generator"
    swiftc -O -o "$WORK/realtime-load" bench/tools/RealtimeLoad.swift
    start_server pier
    local per=9000 generators pids=() i count remaining=$SOCKETS before start joined_at
    generators=$(( (SOCKETS + per - 1) / per ))
    before=$(rss_kib "$SERVER_PID")
    start=$(now_ns)
    for i in $(seq 1 "$generators"); do
        count=$(( remaining < per ? remaining : per ))
        remaining=$(( remaining - count ))
        "$WORK/realtime-load" "$SERVER_PORT" "$ANON" "$count" 25 "$WORK/arrivals-$i.txt" </dev/null >"$WORK/load-$i.log" 2>&1 &
        pids+=($!)
    done
    for i in $(seq 1 "$generators"); do
        until grep -q '^joined' "$WORK/load-$i.log"; do sleep 0.2; done
    done
    joined_at=$(now_ns)
    local joined failed
    joined=$(cat "$WORK"/load-*.log | awk '/^joined/ { n += $2 } END { print n }')
    failed=$(cat "$WORK"/load-*.log | awk '/^joined/ { n += $3 } END { print n }')
    sleep 3
    local after
    after=$(rss_kib "$SERVER_PID")
    echo "sockets: $joined subscribed in $(( (joined_at - start) / 1000000 )) ms ($failed failed; RLIMIT_NOFILE $LIMIT); pier's memory $(( before / 1024 )) → $(( after / 1024 )) MiB: $(( (after - before) * 1024 / (joined > 0 ? joined : 1) )) bytes a socket" | tee -a "$report"
    # Heartbeats start 25 s after the generator began, spread over 25 s: measure 30 s once they all run.
    sleep 25
    # Two readings: over 30 s the scheduler's runtime of every thread (switching in and out of epoll_wait included,
    # which a virtual machine makes dear); then over 15 s perf's task clock (the loops' own work), where perf runs —
    # apart, since perf attached makes every switch dearer.
    local ns0 ns1 own=""
    ns0=$(cpu_ns "$SERVER_PID")
    sleep 30
    ns1=$(cpu_ns "$SERVER_PID")
    if perf stat -e task-clock true >/dev/null 2>&1; then
        own=$(perf stat -x, -e task-clock -p "$SERVER_PID" -- sleep 15 2>&1 | awk -F, '/task-clock/ { printf "%.1f", $1 / 15000 * 100 }')
    fi
    echo "heartbeats: $joined sockets every 25 s ($(( joined / 25 )) a second): pier's CPU $(awk -v d=$((ns1 - ns0)) 'BEGIN { printf "%.1f", d / 30e9 * 100 }') % of a core (scheduler's runtime)${own:+, $own % (perf's task clock: the loops' own work)}" | tee -a "$report"
    # Single check-ins, each to every socket; then a burst of 20 waves in one statement.
    : >"$WORK/sent.txt"
    local user="00000000-0000-4000-8000-00000000bec4"
    for i in $(seq 1 "$EVENTS"); do
        echo "single_$i $(now_ns)" >>"$WORK/sent.txt"
        "$(pg_bindir)/psql" -q "$DATABASE_URL" -c "INSERT INTO nextwave_checkins (wave_id, user_id, departure_at) VALUES ('single_$i', '$user', now() + interval '1 hour')"
        sleep 2
    done
    echo "burst $(now_ns)" >>"$WORK/sent.txt"
    "$(pg_bindir)/psql" -q "$DATABASE_URL" -c "INSERT INTO nextwave_checkins (wave_id, user_id, departure_at) SELECT 'burst_' || w, '$user', now() + interval '1 hour' FROM generate_series(1, 20) w"
    sleep 8
    for i in "${pids[@]}"; do kill -TERM "$i" 2>/dev/null || true; done
    for i in "${pids[@]}"; do wait "$i" 2>/dev/null || true; done
    local peak
    peak=$(peak_rss_mib)
    stop_server
    python3 - "$WORK/sent.txt" "$joined" "$peak" "$WORK"/arrivals-*.txt <<'PY' | tee -a "$report"
import sys
sent_file, sockets, peak = sys.argv[1], int(sys.argv[2]), sys.argv[3]
sent = dict(line.split() for line in open(sent_file))
arrivals = {}
for path in sys.argv[4:]:
    for line in open(path):
        wave, at = line.split()
        arrivals.setdefault(wave, []).append(int(at))
def pct(values, p):
    return values[min(len(values) - 1, int(len(values) * p))]
latencies, short = [], 0
for wave, t0 in sent.items():
    if wave == "burst":
        continue
    got = sorted((at - int(t0)) / 1e6 for at in arrivals.get(wave, []))
    short += sockets - len(got)
    latencies += got
latencies.sort()
if latencies:
    print(f"delivery of one check-in to every socket ({len([w for w in sent if w != 'burst'])} check-ins): p50 {pct(latencies, 0.5):.0f} ms, "
          f"p99 {pct(latencies, 0.99):.0f} ms, max {latencies[-1]:.0f} ms; {short} deliveries missing")
burst = [at for wave, ats in arrivals.items() if wave.startswith("burst_") for at in ats]
if burst:
    seconds = (max(burst) - int(sent["burst"])) / 1e9
    print(f"fan-out: 20 waves in one statement to {sockets} sockets: {len(burst)} of {20 * sockets} deliveries in {seconds:.2f} s, "
          f"{len(burst) / seconds:,.0f} deliveries a second; pier's peak memory {peak} MiB")
PY
    cat "$WORK"/load-*.log | grep '^heartbeats' | awk '{ s += $2; a += $3; c += $5 } END { printf "heartbeats sent %d, answered %d; sockets closed by the server %d\n", s, a, c }' | tee -a "$report"
}
