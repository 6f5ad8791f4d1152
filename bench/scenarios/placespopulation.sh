# Smart City Guide users (scripts/lib/places_population.py) planning tours in 20 cities: BENCH_PLACES_USERS (2,000) on
# a first day with an empty database, then as many others on a second day — a restarted process on the same database
# (answers are fresh for 7 days). Per-second limits are lifted (a day's users are compressed into a few minutes, and
# Geoapify's 5 a second would only turn calls into 503s here); the credits are the stand-in's own count. Not in the
# default run. Sourced by scripts/bench.
SCENARIO_DEFAULT=no
USERS="${BENCH_PLACES_USERS:-2000}"
TITLE="/v1/geocode + /v1/places under ${USERS} simulated users a day planning tours in 20 cities, two days: Geoapify credits"
STANDIN=(python3 scripts/lib/upstream_fixture_server.py)
SEED_SHIPS=no
CLEAR_TABLES="upstream_answers upstream_quota"
ENVIRONMENT=(PIER_GEOAPIFY_URL="http://127.0.0.1:$STANDIN_PORT" PIER_GEOAPIFY_KEY=bench-key PIER_GEOAPIFY_REQUESTS_PER_SECOND=1000
    PIER_GEOAPIFY_BURST=1000 PIER_GEOAPIFY_CLIENT_SHARE=1 PIER_GEOAPIFY_CREDITS_PER_DAY=100000)
scenario_run() {
    for day in 1 2; do
        PIER_FETCH=off start_server pier
        printf 'day %s: %s\n' "$day" "$(python3 scripts/lib/places_population.py "http://127.0.0.1:$SERVER_PORT" "http://127.0.0.1:$STANDIN_PORT" "$USERS" "$day")" | tee -a "$report"
        stop_server
    done
    "$(pg_bindir)/psql" -qtA "$DATABASE_URL" -c "SELECT 'stored answers: ' || string_agg(kind || ' ' || n, ', ') FROM (SELECT kind, count(*) AS n FROM upstream_answers GROUP BY kind) k" | tee -a "$report"
}
