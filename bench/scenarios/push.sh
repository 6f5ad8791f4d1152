# Push: BENCH_PUSH_DEVICES (100,000) devices with a place inside one warning's area (Uusimaa, from the tests' FMI
# fixtures), the warning published by a `pier fetch warnings --once` beside the running server — as another replica
# reads a new publication — and every push delivered to the APNs stand-in (Sources/APNs/Testing/apns_standin.py:
# HTTP/2 over TLS, checking the provider token, topic, push type, token and size as Apple does; --count-only).
# Figures: publication to the last delivery, pushes a second, the notifier's look (the fan-out query and the
# enqueue, pier_warning_push_look_seconds), pier's peak RSS; then the stand-in's own rate under h2load (one
# connection, 1000 streams, the same checks), so that it is seen not to be the limit. Sourced by scripts/bench.
DEVICES="${BENCH_PUSH_DEVICES:-100000}"
TITLE="Push: $DEVICES devices inside one warning's area, from its publication to the last delivery at the APNs stand-in"
SCENARIO_DEFAULT=no
SEED_SHIPS=no
PUSH_DIR="$WORK/push"
CLEAR_TABLES="push_outbox warning_notified warning_push_roots warning_subscriptions push_devices weather_warnings"
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

scenario_after() { [ -n "$APNS_PID" ] && kill "$APNS_PID" 2>/dev/null; true; }

# control PATH [BODY]: the stand-in's control port.
control() {
    if [ $# -gt 1 ]; then curl -fs -X POST --data "$2" "http://127.0.0.1:$APNS_CONTROL$1"; else curl -fs "http://127.0.0.1:$APNS_CONTROL$1"; fi
}
stat_of() { control /stats | python3 -c "import json, sys; print(json.load(sys.stdin)['$1'] or 0)"; }

scenario_run() {
    ensure_python_tools
    command -v h2load >/dev/null 2>&1 || ensure_packages nghttp2-client
    openssl ecparam -name prime256v1 -genkey -noout -out "$PUSH_DIR/ec.pem"
    openssl pkcs8 -topk8 -nocrypt -in "$PUSH_DIR/ec.pem" -out "$PUSH_DIR/key.p8"
    openssl ec -in "$PUSH_DIR/ec.pem" -pubout -out "$PUSH_DIR/public.pem" 2>/dev/null
    "$PIER_PYTHON/python" Sources/APNs/Testing/apns_standin.py --dir "$PUSH_DIR" --key-id BENCHKEY01 --team-id BENCHTEAM1 \
        --topic fi.example.weather --public-key "$PUSH_DIR/public.pem" --count-only >"$WORK/apns.log" 2>&1 &
    APNS_PID=$!
    local i
    for i in $(seq 1 100); do [ -f "$PUSH_DIR/ports" ] && break; sleep 0.1; done
    read -r APNS_PORT APNS_CONTROL <"$PUSH_DIR/ports"

    # The devices: one place each, random inside the area, rounded as registrations are; a third in each language.
    local start
    start=$(now_ns)
    "$(pg_bindir)/psql" -q "$DATABASE_URL" -v ON_ERROR_STOP=1 -v area="$(cat "$PUSH_DIR/area.wkt")" -v devices="$DEVICES" <<'SQL'
CREATE TEMP TABLE bench_points AS
    SELECT row_number() OVER () AS i, ST_SnapToGrid(geom, 0.01) AS g
    FROM ST_Dump(ST_GeneratePoints(ST_GeomFromText(:'area', 4326), :devices, 1));
INSERT INTO push_devices (id, token, environment)
    SELECT md5('bench' || i)::uuid, lpad(to_hex(i), 64, '0'), 'production' FROM bench_points;
INSERT INTO warning_subscriptions (device_id, secret_hash, language, places, min_severity, all_clear)
    SELECT md5('bench' || i)::uuid, md5(i::text), (ARRAY['fi', 'sv', 'en'])[1 + i % 3], ST_Multi(g), 2, false FROM bench_points;
ANALYZE push_devices;
ANALYZE warning_subscriptions;
SQL
    echo "seeding $DEVICES devices: $(( ($(now_ns) - start) / 1000000 )) ms" | tee -a "$report"

    PIER_APNS_KEY_FILE="$PUSH_DIR/key.p8" PIER_APNS_KEY_ID=BENCHKEY01 PIER_APNS_TEAM_ID=BENCHTEAM1 PIER_APNS_TOPIC=fi.example.weather \
        PIER_APNS_URL="https://127.0.0.1:$APNS_PORT" PIER_APNS_CA_FILE="$PUSH_DIR/ca.pem" PIER_APNS_ALLOW_TEST_CA=yes start_server pier
    sleep 1  # the notifier's first look (nothing in force yet)
    start=$(now_ns)
    "$PIER_BIN" fetch warnings --once >/dev/null
    local published delivered pushes
    published=$(( ($(now_ns) - start) / 1000000 ))
    for i in $(seq 1 3000); do
        [ "$(stat_of pushes)" -ge "$DEVICES" ] && break
        sleep 0.1
    done
    read -r pushes delivered first last < <(control /stats | python3 -c '
import json, sys
s = json.load(sys.stdin)
print(s["pushes"], s["delivered"], s["first_at"] or 0, s["last_at"] or 0)')
    local look rss total rate
    look=$(metric pier_warning_push_look_seconds)
    rss=$(peak_rss_mib)
    total=$(awk -v s="$start" -v l="$last" 'BEGIN { printf "%.2f", l - s / 1e9 }')
    rate=$(awk -v n="$pushes" -v f="$first" -v l="$last" 'BEGIN { printf "%.0f", (l > f) ? n / (l - f) : 0 }')
    printf 'publication (pier fetch warnings --once, %s ms) to the last delivery: %s s; %s pushes (%s delivered), %s pushes/s from the first to the last; the notifier'"'"'s look %s s; pier peak RSS %s MiB\n' \
        "$published" "$total" "$pushes" "$delivered" "$rate" "$look" "$rss" | tee -a "$report"
    stop_server

    # The stand-in alone: h2load over one connection with 1000 streams, a valid provider token and a push's payload.
    control /reset '{}' >/dev/null
    local jwt
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
    local out
    out=$(h2load -n "$DEVICES" -c 1 -m 1000 -H "authorization: bearer $jwt" -H "apns-topic: fi.example.weather" -H "apns-push-type: alert" \
        -d "$PUSH_DIR/payload.json" "https://127.0.0.1:$APNS_PORT/3/device/$(printf '%064x' 1)" 2>&1 || true)
    printf 'the stand-in alone (h2load, 1 connection, 1000 streams): %s; %s answered 200\n' \
        "$(grep -o 'finished in [^,]*, [0-9.]* req/s' <<<"$out" | head -1)" "$(stat_of delivered)" | tee -a "$report"
}
