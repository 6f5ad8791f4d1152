# Live check-ins under attack (issue 65), full size at the shipped caps: scripts/lib/realtime_attacks.py --scale full
# beside a healthy subscriber (the iPhone app's channel, protocol 2.0.0) and a rider checking in to a fresh wave every
# 0.6 s — 10 sockets pinging without reading, sockets from 100 addresses until refused then plain connections until
# refused (/health/live, sign-ups and REST asked meanwhile), 2,000 sockets joining 10 channels of 16 bindings that match
# nothing, 200 sockets with a 30,000-byte join_ref, one rider's 100-row upserts and deletes as fast as answered, 200
# unfinished 60 KiB messages kept open, 200 sockets with 63,000-character filters. Each line: the healthy subscriber's
# delivery p50/p99 and events missed, pier's CPU per event and in all, its memory's growth, beside the undisturbed
# line first. Shipped limits throughout (PIER_MAX_CONNECTIONS 10,000: sockets may take 8,000). Sourced by scripts/bench.
TITLE="Live check-ins under attack: the healthy subscriber's delivery and pier's CPU per event, undisturbed and under each attack"
SCENARIO_DEFAULT=no
SEED_SHIPS=no
CLEAR_TABLES="nextwave_checkins nextwave_users"
SECRET="bench-jwt-secret-of-at-least-thirty-two-characters"
ENVIRONMENT=(PIER_NEXTWAVE=on PIER_NEXTWAVE_JWT_SECRET="$SECRET")
ANON="$(python3 scripts/lib/supabase_anon_key.py "$SECRET")"

scenario_run() {
    start_server pier
    python3 scripts/lib/realtime_attacks.py "http://127.0.0.1:$SERVER_PORT" "$ANON" "$SERVER_PID" --scale full | tee -a "$report"
    echo "pier's peak memory $(peak_rss_mib) MiB" | tee -a "$report"
    stop_server
}
