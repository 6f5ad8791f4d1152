# Push: BENCH_PUSH_DEVICES (100,000) devices with a place inside one warning's area (Uusimaa, from the tests' FMI
# fixtures), the warning published by a `pier fetch warnings --once` beside the running server — as another replica
# reads a new publication — and every push delivered over HTTP/2 and TLS. Figures: publication to the last delivery,
# pushes a second, the notifier's look (the fan-out query and the enqueue, pier_warning_push_look_seconds), pier's
# peak RSS. The pushes go to nghttpd (nghttp2's C server: an empty file per device token under 3/device/, so every push
# is answered 200 with an empty body, as APNs answers; `--echo-upload` wrote each body to a temporary file and was
# the limit at ~1,500/s) because the tests' APNs
# stand-in (Sources/APNs/Testing/apns_standin.py, Python's h2, which checks the provider token, topic, push type,
# token and size as Apple does) answers about a thousand a second on one connection and would be the limit; each
# one's own rate under h2load (one connection, 1000 streams, a valid provider token) is printed beside it. Sourced by
# scripts/bench.
DEVICES="${BENCH_PUSH_DEVICES:-100000}"
TITLE="Push: $DEVICES devices inside one warning's area, from its publication to the last delivery at the APNs stand-in"
SCENARIO_DEFAULT=no
SEED_SHIPS=no
PUSH_DIR="$WORK/push"
CLEAR_TABLES="push_outbox push_payloads warning_notified warning_push_roots warning_subscriptions push_devices weather_warnings"
rm -rf "$PUSH_DIR"
mkdir -p "$PUSH_DIR"
# One publication of one warning (the fixtures' traffic warning over Uusimaa) and its area as WKT.
python3 - "$PUSH_DIR" <<'PY'
import json, sys
out = sys.argv[1]
templates = json.load(open("Tests/Fixtures/fmi-warnings/warnings.json"))
templates["publications"] = {"current": {"minutes_before_now": 1, "items": ["traffic_uusimaa"]}}
templates["points"] = {}
json.dump(templates, open(out + "/templates.json", "w"))
ring = [point.split(",") for point in templates["areas"]["uusimaa"]["polygons"][0].split()]
if ring[0] != ring[-1]:
    ring.append(ring[0])
open(out + "/area.wkt", "w").write("POLYGON((" + ",".join(f"{lon} {lat}" for lat, lon in ring) + "))")
PY
python3 scripts/fixtures/gen_fmi_warnings.py "$PUSH_DIR/templates.json" "$PUSH_DIR/site" --base "http://127.0.0.1:$STANDIN_PORT" >/dev/null
rm -f "$PUSH_DIR"/site/feed/atom_*.xml
ln -s ../feed "$PUSH_DIR/site/cap/feed"
STANDIN=(python3 -m http.server --bind 127.0.0.1 --directory "$PUSH_DIR/site")
ENVIRONMENT=(PIER_FMI_WARNINGS_URL="http://127.0.0.1:$STANDIN_PORT/cap/feed/rss_en-GB.rss" PIER_FETCH_JITTER_S=0)
APNS_PID=""
SINK_PID=""

scenario_after() { [ -n "$APNS_PID" ] && kill "$APNS_PID" 2>/dev/null; [ -n "$SINK_PID" ] && kill "$SINK_PID" 2>/dev/null; true; }

# psql_value SQL: one value, unaligned.
psql_value() { "$(pg_bindir)/psql" -qAt "$DATABASE_URL" -c "$1"; }

scenario_run() {
    trap '[ -n "$APNS_PID" ] && kill "$APNS_PID"; [ -n "$SINK_PID" ] && kill "$SINK_PID"; [ -n "$STANDIN_PID" ] && kill "$STANDIN_PID"; [ -n "$SERVER_PID" ] && kill "$SERVER_PID"; true' EXIT
    ensure_python_tools
    command -v h2load >/dev/null 2>&1 || ensure_packages nghttp2-client
    command -v nghttpd >/dev/null 2>&1 || [ -x /usr/sbin/nghttpd ] || ensure_packages nghttp2-server
    local nghttpd i start
    nghttpd=$(command -v nghttpd || echo /usr/sbin/nghttpd)
    openssl ecparam -name prime256v1 -genkey -noout -out "$PUSH_DIR/ec.pem"
    openssl pkcs8 -topk8 -nocrypt -in "$PUSH_DIR/ec.pem" -out "$PUSH_DIR/key.p8"
    openssl ec -in "$PUSH_DIR/ec.pem" -pubout -out "$PUSH_DIR/public.pem" 2>/dev/null
    # The sink's certificate is its own CA (what PIER_APNS_CA_FILE trusts).
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$PUSH_DIR/sink.key" -out "$PUSH_DIR/sink.pem" \
        -days 1 -subj "/CN=127.0.0.1" -addext "subjectAltName=IP:127.0.0.1" -addext "basicConstraints=critical,CA:true" 2>/dev/null
    local sink_port=$((PIER_PORT + 11))
    "$nghttpd" -m 1000 -d "$PUSH_DIR" "$sink_port" "$PUSH_DIR/sink.key" "$PUSH_DIR/sink.pem" >"$WORK/nghttpd.log" 2>&1 &
    SINK_PID=$!
    sleep 0.3
    kill -0 "$SINK_PID" 2>/dev/null || die "nghttpd did not start (port $sink_port taken?): $(cat "$WORK/nghttpd.log")"

    # The devices: one place each, random inside the area, a third in each language.
    start=$(now_ns)
    "$(pg_bindir)/psql" -q "$DATABASE_URL" -v ON_ERROR_STOP=1 -v area="$(cat "$PUSH_DIR/area.wkt")" -v devices="$DEVICES" <<'SQL'
-- Rounded as registrations are; a point the rounding moved out of the area is left out.
CREATE TEMP TABLE bench_points AS
    SELECT row_number() OVER () AS i, g FROM (
        SELECT ST_SnapToGrid(geom, 0.01) AS g FROM ST_Dump(ST_GeneratePoints(ST_GeomFromText(:'area', 4326), :devices * 11 / 10, 1))
    ) snapped
    WHERE ST_Contains(ST_GeomFromText(:'area', 4326), g)
    LIMIT :devices;
INSERT INTO push_devices (id, app, token, environment)
    SELECT md5('bench' || i)::uuid, 'warnings', lpad(to_hex(i), 64, '0'), 'production' FROM bench_points;
INSERT INTO warning_subscriptions (device_id, secret_hash, language, places, min_severity, all_clear)
    SELECT md5('bench' || i)::uuid, md5(i::text), (ARRAY['fi', 'sv', 'en'])[1 + i % 3], ST_Multi(g), 2, false FROM bench_points;
ANALYZE push_devices;
ANALYZE warning_subscriptions;
SQL
    # The sink's answer to each device's path: an empty file.
    mkdir -p "$PUSH_DIR/3/device"
    "$(pg_bindir)/psql" -qAt "$DATABASE_URL" -c "SELECT token FROM push_devices" | (cd "$PUSH_DIR/3/device" && xargs touch)
    echo "seeding $DEVICES devices: $(( ($(now_ns) - start) / 1000000 )) ms" | tee -a "$report"

    PIER_APNS_KEY_FILE="$PUSH_DIR/key.p8" PIER_APNS_KEY_ID=BENCHKEY01 PIER_APNS_TEAM_ID=BENCHTEAM1 PIER_APNS_TOPIC=fi.example.weather \
        PIER_APNS_URL="https://127.0.0.1:$sink_port" PIER_APNS_CA_FILE="$PUSH_DIR/sink.pem" PIER_APNS_ALLOW_TEST_CA=yes start_server pier
    sleep 1  # the notifier's first look (nothing in force yet)
    local wal_before cpu_before
    wal_before=$(psql_value "SELECT pg_current_wal_lsn()")
    cpu_before=$(metric process_cpu_seconds_total)
    start=$(now_ns)
    "$PIER_BIN" fetch warnings --once >/dev/null
    local published=$(( ($(now_ns) - start) / 1000000 ))
    for i in $(seq 1 3000); do
        # Cheap, as the delivery runs beside it (a count of the whole outbox ten times a second was a parallel scan
        # taking a quarter of a core from the delivery): is anything pending, has anything finished.
        read -r pending finished < <(psql_value "SELECT EXISTS (SELECT 1 FROM push_outbox WHERE state = 'pending') || ' ' || EXISTS (SELECT 1 FROM push_outbox WHERE state <> 'pending')")
        [ "$finished" = true ] && [ "$pending" = false ] && break
        [ "$i" -eq 600 ] && [ "$finished" = false ] && die "nothing delivered in a minute: $(tail -5 "$WORK/pier.log")"
        sleep 0.1
    done
    read -r delivered total first last < <(psql_value "SELECT count(*) FILTER (WHERE state = 'delivered') || ' ' || count(*) || ' '
        || extract(epoch FROM min(created_at)) || ' ' || extract(epoch FROM max(finished_at)) FROM push_outbox")
    local look rss fanout wal
    look=$(metric pier_warning_push_look_seconds)
    # PostgreSQL's write-ahead log from the publication to the last delivery, per push: the database's work for each
    # push as bytes (enqueue, claim, result), a figure the machine's load does not move.
    wal=$(psql_value "SELECT round(pg_wal_lsn_diff(pg_current_wal_lsn(), '$wal_before') / greatest(count(*), 1)) FROM push_outbox")
    # pier's CPU time per push (/metrics' process_cpu_seconds_total): its own work, less moved by the machine's load
    # than a rate.
    local cpu
    cpu=$(awk -v a="$cpu_before" -v b="$(metric process_cpu_seconds_total)" -v n="$total" 'BEGIN { printf "%.0f", (n > 0) ? (b - a) * 1e6 / n : 0 }')
    # The outbox's updates kept on their page (HOT: no index entry written), of all its updates.
    local hot
    hot=$(psql_value "SELECT n_tup_hot_upd || ' of ' || n_tup_upd FROM pg_stat_user_tables WHERE relname = 'push_outbox'")
    # The fan-out query alone (the devices whose places the warning's area contains), as the notifier asks it.
    fanout=$(psql_value "EXPLAIN (ANALYZE, FORMAT JSON) SELECT s.device_id, s.language FROM warning_subscriptions s, weather_warnings w
        WHERE s.min_severity <= w.severity::int AND ST_Intersects(s.places, w.area)" | python3 -c 'import json, sys; plan = json.load(sys.stdin)[0]; print("%.0f ms for %d devices" % (plan["Execution Time"], plan["Plan"]["Actual Rows"]))')
    rss=$(peak_rss_mib)
    printf 'publication (pier fetch warnings --once, %s ms) to the last delivery: %s s; %s of %s pushes delivered, %s pushes/s from the first enqueued to the last delivered; the notifier'"'"'s look (fan-out query and enqueue) %s s, the fan-out query alone %s; PostgreSQL WAL %s bytes a push, outbox updates HOT %s; pier CPU %s µs a push; pier peak RSS %s MiB\n' \
        "$published" "$(awk -v s="$start" -v l="$last" 'BEGIN { printf "%.2f", l - s / 1e9 }')" "$delivered" "$total" \
        "$(awk -v n="$delivered" -v f="$first" -v l="$last" 'BEGIN { printf "%.0f", (l > f) ? n / (l - f) : 0 }')" "$look" "$fanout" "$wal" "$hot" "$cpu" "$rss" | tee -a "$report"
    stop_server

    # Each server alone under h2load: one connection, 1000 streams, a push's payload, a valid provider token.
    local jwt out
    jwt=$("$PIER_PYTHON/python" - "$PUSH_DIR/key.p8" <<'PY'
import base64, json, sys, time
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature
key = serialization.load_pem_private_key(open(sys.argv[1], "rb").read(), None)
b64 = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()
signing = b64(json.dumps({"alg": "ES256", "kid": "BENCHKEY01"}).encode()) + "." + b64(json.dumps({"iss": "BENCHTEAM1", "iat": int(time.time())}).encode())
r, s = decode_dss_signature(key.sign(signing.encode(), ec.ECDSA(hashes.SHA256())))
print(signing + "." + b64(r.to_bytes(32, "big") + s.to_bytes(32, "big")))
PY
)
    printf '{"aps":{"alert":{"title":"Yellow warning for road weather","body":"%s"},"thread-id":"warnings"}}' "$(printf 'x%.0s' $(seq 1 300))" >"$PUSH_DIR/payload.json"
    h2load_rate() { # ORIGIN REQUESTS -> "N req/s, M answered 2xx"
        out=$(h2load -n "$2" -c 1 -m 1000 -H "authorization: bearer $jwt" -H "apns-topic: fi.example.weather" -H "apns-push-type: alert" \
            -d "$PUSH_DIR/payload.json" "$1/3/device/$(printf '%064x' 1)" 2>&1 || true)
        printf '%s req/s, %s answered 2xx' "$(grep -o '[0-9.]* req/s' <<<"$out" | head -1 | cut -d' ' -f1)" "$(awk '/status codes/ { print $3 }' <<<"$out")"
    }
    echo "the sink alone (nghttpd): $(h2load_rate "https://127.0.0.1:$sink_port" "$DEVICES")" | tee -a "$report"
    "$PIER_PYTHON/python" Sources/APNs/Testing/apns_standin.py --dir "$PUSH_DIR" --key-id BENCHKEY01 --team-id BENCHTEAM1 \
        --topic fi.example.weather --public-key "$PUSH_DIR/public.pem" --count-only >"$WORK/apns.log" 2>&1 &
    APNS_PID=$!
    for i in $(seq 1 100); do [ -f "$PUSH_DIR/ports" ] && break; sleep 0.1; done
    local apns_port
    read -r apns_port _ <"$PUSH_DIR/ports" || true  # one line without its newline
    echo "the tests' checking APNs stand-in alone (Python h2): $(h2load_rate "https://127.0.0.1:$apns_port" 20000)" | tee -a "$report"
}
