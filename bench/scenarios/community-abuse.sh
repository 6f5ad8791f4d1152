# Next Wave's community under abuse (issue 53), full size: scripts/lib/community_attacks.py --scale full (1,500 padded
# counts bodies of 100 KB beside a control flood, 5,000 check-ins stamped departed and the archive after, 2,000 verified
# sessions of one day, one user's leaderboard flood on 16 connections for 15 s beside another rider's check-ins — their
# p99 is the figure —, 1,000 sign-ups from rotating networks), with the shipped limits but generous writes (the bounds
# are what is tried); then rpc/wave_leaderboard of a season's board (BENCH_RIDERS riders with rides) beside /api/ships,
# with the shipped reads share (the goal: at least half of /api/ships' req/s). Sourced by scripts/bench.
RIDERS="${BENCH_RIDERS:-2000}"
TITLE="Next Wave community under abuse: the attacks full size; wave_leaderboard of $RIDERS riders next to /api/ships"
SCENARIO_DEFAULT=no
CLEAR_TABLES="nextwave_checkins nextwave_history nextwave_badges nextwave_profiles nextwave_verified_sessions nextwave_users"
SECRET="bench-jwt-secret-of-at-least-thirty-two-characters"
ENVIRONMENT=(PIER_NEXTWAVE=on PIER_NEXTWAVE_JWT_SECRET="$SECRET" PIER_NEXTWAVE_WRITES_REQUESTS_PER_MINUTE=1000000 PIER_NEXTWAVE_WRITES_BURST=100000
    PIER_NEXTWAVE_WRITES_CLIENT_SHARE=1)
ANON="$(python3 scripts/lib/supabase_anon_key.py "$SECRET")"

scenario_prepare() {
    # A season's history: every rider a few rides at a few stations, some named.
    "$(pg_bindir)/psql" -q "$DATABASE_URL" -v ON_ERROR_STOP=1 <<SQL
INSERT INTO nextwave_users (id) SELECT md5('rider' || i)::uuid FROM generate_series(1, $RIDERS) i;
INSERT INTO nextwave_profiles (user_id, display_name) SELECT md5('rider' || i)::uuid, 'Rider ' || i FROM generate_series(1, $RIDERS, 3) i;
INSERT INTO nextwave_history (user_id, wave_id, station_id, lake_id, departure_at)
SELECT md5('rider' || i)::uuid, 'season_' || i || '_' || r, 'Station_' || (i + r) % 40, 'Lake_' || (i + r) % 12, now() - make_interval(days => r)
FROM generate_series(1, $RIDERS) i, generate_series(1, 1 + i % 60) r;
ANALYZE nextwave_history;
SQL
}

scenario_run() {
    start_server pier
    python3 scripts/lib/community_attacks.py "http://127.0.0.1:$SERVER_PORT" "$ANON" "$SERVER_PID" --scale full --pier "$PIER_BIN" | tee -a "$report"
    stop_server
    # The leaderboard from memory beside /api/ships: one rider's calls with the shipped reads share — a call memory
    # answers spends none of it (only the board's first computation does).
    start_server pier
    local token script
    token=$(curl -fs -X POST "http://127.0.0.1:$SERVER_PORT/auth/v1/signup" -H "apikey: $ANON" -H "Content-Type: application/json" -d '{}' |
        python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')
    script="$WORK/leaderboard.lua"
    printf 'wrk.method = "POST"\nwrk.body = [[{"p_station_id":null,"p_limit":50}]]\nwrk.headers["Content-Type"] = "application/json"\nwrk.headers["apikey"] = "%s"\nwrk.headers["Authorization"] = "Bearer %s"\n' \
        "$ANON" "$token" >"$script"
    echo "# the board: $(curl -fs -X POST "http://127.0.0.1:$SERVER_PORT/rest/v1/rpc/wave_leaderboard" -H "apikey: $ANON" -H "Authorization: Bearer $token" \
        -H "Content-Type: application/json" -d '{"p_station_id":null,"p_limit":50}' | wc -c) bytes, $RIDERS riders" | tee -a "$report"
    warm_beside_ships /rest/v1/rpc/wave_leaderboard "$script"
    stop_server
}
