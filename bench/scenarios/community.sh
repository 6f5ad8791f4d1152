# Next Wave's community (PIER_NEXTWAVE=on): wave_checkin_counts for the 30 departures of a busy board — what the app
# asks on every refresh, with the public key alone — next to /api/ships (warm: the counts held in memory between
# check-ins; the goal is at least half of /api/ships' req/s), then the nightly archive of a season: BENCH_CHECKINS
# (100,000) departed check-ins of BENCH_RIDERS (2,000) riders over 200 waves a day, archived by `pier nextwave archive`
# (timed: history, statistics and badges of every rider). Sourced by scripts/bench.
CHECKINS="${BENCH_CHECKINS:-100000}"
RIDERS="${BENCH_RIDERS:-2000}"
TITLE="Next Wave community: wave_checkin_counts for 30 waves next to /api/ships; the archive of $CHECKINS check-ins"
SCENARIO_DEFAULT=no
CLEAR_TABLES="nextwave_checkins nextwave_history nextwave_badges nextwave_profiles nextwave_users"
SECRET="bench-jwt-secret-of-at-least-thirty-two-characters"
ENVIRONMENT=(PIER_NEXTWAVE=on PIER_NEXTWAVE_JWT_SECRET="$SECRET")
ANON="$(python3 scripts/lib/supabase_anon_key.py "$SECRET")"

scenario_prepare() {
    # Riders, and on each of the board's 30 waves (departures this evening) a few of them checked in, some named.
    "$(pg_bindir)/psql" -q "$DATABASE_URL" -v ON_ERROR_STOP=1 <<SQL
INSERT INTO nextwave_users (id) SELECT md5('rider' || i)::uuid FROM generate_series(1, $RIDERS) i;
INSERT INTO nextwave_checkins (wave_id, user_id, display_name, departure_at, station_id, lake_id)
SELECT 'board_' || w, md5('rider' || (w * 7 + r))::uuid, CASE WHEN r % 2 = 0 THEN 'Rider ' || r END, now() + make_interval(hours => 6, mins => w),
       'Thalwil (See)_8503674', 'Zürichsee'
FROM generate_series(1, 30) w, generate_series(1, 5) r;
SQL
}

scenario_run() {
    local body script
    body="{\"wave_ids\":[$(seq -s, 1 30 | sed 's/\([0-9]*\)/"board_\1"/g')]}"
    script="$WORK/counts.lua"
    printf 'wrk.method = "POST"\nwrk.body = [[%s]]\nwrk.headers["Content-Type"] = "application/json"\nwrk.headers["apikey"] = "%s"\nwrk.headers["Authorization"] = "Bearer %s"\n' \
        "$body" "$ANON" "$ANON" >"$script"
    start_server pier
    local counts
    counts=$(curl -fs -X POST "http://127.0.0.1:$SERVER_PORT/rest/v1/rpc/wave_checkin_counts" -H "apikey: $ANON" -H "Content-Type: application/json" -d "$body")
    echo "# the answer: $(python3 -c 'import json, sys; rows = json.loads(sys.argv[1]); print(len(rows), "waves,", sum(r["count"] for r in rows), "check-ins,", len(sys.argv[1]), "bytes")' "$counts")" | tee -a "$report"
    warm_beside_ships /rest/v1/rpc/wave_checkin_counts "$script"
    stop_server
    # A season of departed check-ins (150 days, 200 waves a day with their riders), archived at once.
    "$(pg_bindir)/psql" -q "$DATABASE_URL" -v ON_ERROR_STOP=1 <<SQL
DELETE FROM nextwave_checkins;
INSERT INTO nextwave_checkins (wave_id, user_id, display_name, departure_at, created_at, station_id, lake_id, is_first_of_day)
SELECT 'season_' || i / 4, md5('rider' || (1 + (i * 7919) % $RIDERS))::uuid, NULL,
       now() - interval '1 hour' - make_interval(days => (i / 4) / 200, mins => ((i / 4) % 200) * 3), now() - interval '200 days' + make_interval(secs => i),
       'Station_' || (i / 4) % 40, 'Lake_' || (i / 4) % 12, (i / 4) % 200 = 0
FROM generate_series(0, $CHECKINS - 1) i ON CONFLICT DO NOTHING;
SQL
    local start
    start=$(now_ns)
    local summary
    summary=$(env "${ENVIRONMENT[@]}" "$PIER_BIN" nextwave archive)
    echo "archive of a season: $(( ($(now_ns) - start) / 1000000 )) ms — $summary" | tee -a "$report"
}
