# /v1/stationboard over a local transport.opendata.ch (scripts/lib/transport_fixture_server.py, the fixture boards,
# ~80 KB of indented JSON each): cold keys (upstream call + check + PostgreSQL + render), then one warm key next to
# /api/ships (a week of ships in PostgreSQL, as in the cache section). Sourced by scripts/bench (see its scenarios).
TITLE="/v1/stationboard over a local transport.opendata.ch: cold keys, then a warm key next to /api/ships"
STANDIN=(python3 scripts/lib/transport_fixture_server.py Tests/Fixtures/transport)
CLEAR_TABLES="upstream_answers"
ENVIRONMENT=(PIER_TRANSPORT_URL="http://127.0.0.1:$STANDIN_PORT/v1" PIER_TRANSPORT_REQUESTS_PER_MINUTE=1000000 PIER_TRANSPORT_BURST=100000)
tomorrow=$(python3 -c 'import datetime; print(datetime.date.today() + datetime.timedelta(days=1))')
COLD_LABEL="cold key (upstream + check + store + render)"
COLD_UNIT="keys"
cold_path() { echo "/v1/stationboard?id=8503651&date=$tomorrow&limit=$(($1 + 1))"; }
WARM_PATHS=("/v1/stationboard?id=8503651&date=$tomorrow&limit=30")
