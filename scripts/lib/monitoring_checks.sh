# Sourced by scripts/test: the monitoring profile (deploy/monitoring) proven, not just written.
#   - the dashboards' JSON is what deploy/monitoring/grafana/dashboards.py writes
#   - promtool checks the Prometheus configuration and the alert rules, and runs the rules' unit tests
#     (deploy/monitoring/prometheus/tests: each alert fires when it should and stays silent when it should not)
#   - the compose profile: Prometheus and Grafana only under `--profile monitoring`, pinned images, the files they
#     mount present, Grafana's password from .env and never a default (scripts/lib/compose_monitoring.py)
#   - a real Prometheus (Debian's) scrapes two real Piers — one serving the demo (fetching, pushing), one with keys,
#     App Attest on and every upstream unreachable (quotas, refusals, 5xx) — and every dashboard query and alert rule
#     is evaluated against it (scripts/lib/check_dashboards.py)
# Needs: the debug build (scripts/test built it), DATABASE_URL (the test cluster), $PIER_PYTHON (PyYAML).
monitoring_checks() {
    local root="$PIER_ROOT/deploy/monitoring" work pids=() port
    log "monitoring: dashboards as dashboards.py writes them"
    python3 "$root/grafana/dashboards.py" --check
    log "monitoring: promtool check config, check rules, test rules"
    work="$(mktemp -d /tmp/pier-monitoring.XXXXXX)"
    # The shipped configuration names the rules where the container mounts them; checked here against the repository's.
    sed "s#/etc/prometheus/rules/\*.yml#$root/prometheus/rules/*.yml#" "$root/prometheus/prometheus.yml" >"$work/shipped.yml"
    promtool check config "$work/shipped.yml" >/dev/null
    promtool check rules "$root/prometheus/rules/"*.yml
    promtool test rules "$root/prometheus/tests/"*.yml
    log "monitoring: the compose profile"
    local scratch
    scratch="$(mktemp -d)"
    sed -e 's/^POSTGRES_PASSWORD=.*/POSTGRES_PASSWORD=test-only-password/' -e 's/^ACME_EMAIL=.*/ACME_EMAIL=ops@example.org/' \
        -e 's/^SITE_ADDRESS=.*/SITE_ADDRESS=api.example.org/' -e 's/^GRAFANA_ADMIN_PASSWORD=.*/GRAFANA_ADMIN_PASSWORD=test-only-grafana/' \
        "$PIER_ROOT/.env.example" >"$scratch/.env"
    # The compose file beside its own .env (the api's env_file), the repository's deploy/ linked in: the mounts' paths
    # resolve into the repository.
    cp "$PIER_ROOT/docker-compose.yml" "$scratch/"
    ln -s "$PIER_ROOT/deploy" "$scratch/deploy"
    docker-compose --project-directory "$scratch" -f "$scratch/docker-compose.yml" --env-file "$scratch/.env" --profile monitoring config \
        | "$PIER_PYTHON/python" "$PIER_ROOT/scripts/lib/compose_monitoring.py" "$PIER_ROOT" test-only-grafana
    rm -rf "$scratch"

    log "monitoring: a real Prometheus scraping two real Piers; every panel query and alert rule evaluated"
    # In a subshell of its own: the processes it starts are stopped however it ends.
    (
    trap 'kill ${pids[*]:-} 2>/dev/null; wait 2>/dev/null; rm -rf "$work"' EXIT
    local demo_port live_port prom_port
    read -r demo_port live_port prom_port < <(python3 -c 'import socket
ports = []
for _ in range(3):
    s = socket.socket(); s.bind(("127.0.0.1", 0)); ports.append(s); 
print(*[s.getsockname()[1] for s in ports])')
    local pier="$PIER_ROOT/.build/debug/pier" dead="http://127.0.0.1:9"
    pier_environment
    (cd "$PIER_ROOT" && PIER_MIGRATIONS_DIR=Migrations exec "${PIER_ENV[@]}" "$pier" serve --demo --port "$demo_port") >"$work/demo.log" 2>&1 &
    pids+=($!)
    # Every upstream's key set and its URL at a closed port (both read from the sources, so a new upstream needs no
    # edit here): quotas and budgets exist, calls fail at once, nothing leaves the machine.
    local settings=() name
    for name in $(grep -rhoE '"PIER_[A-Z_]+_KEY"' "$PIER_ROOT/Sources" | tr -d '"' | sort -u); do settings+=("$name=monitoring-test"); done
    for name in $(grep -rhoE '"PIER_[A-Z_]+_URL"' "$PIER_ROOT/Sources" | tr -d '"' | grep -v PIER_APNS_URL | sort -u); do settings+=("$name=$dead"); done
    (cd "$PIER_ROOT" && exec "${PIER_ENV[@]}" PIER_MIGRATIONS_DIR=Migrations PIER_FETCH=off "${settings[@]}" \
        PIER_APP_ATTEST=monitor PIER_APP_ATTEST_APPS=ABCDE12345.fi.example.weather PIER_APP_ATTEST_SECRET=monitoring-test-secret-0123456789abcdef \
        "$pier" serve --port "$live_port") >"$work/live.log" 2>&1 &
    pids+=($!)
    cat >"$work/prometheus.yml" <<YAML
global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: ["$root/prometheus/rules/*.yml"]
scrape_configs:
  - job_name: pier
    static_configs: [{targets: ["127.0.0.1:$demo_port", "127.0.0.1:$live_port"]}]
YAML
    prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/data" --web.listen-address="127.0.0.1:$prom_port" \
        >"$work/prometheus.log" 2>&1 &
    pids+=($!)
    local i
    for port in "$demo_port" "$live_port"; do
        for i in $(seq 1 300); do curl -sf "http://127.0.0.1:$port/health/live" >/dev/null && break; sleep 0.1; done
        curl -sf "http://127.0.0.1:$port/health/live" >/dev/null || { tail -n 20 "$work"/*.log >&2; die "pier on port $port did not start"; }
    done
    # Traffic on both: cached and on-demand routes, a 404, the warnings, upstreams that cannot answer (503).
    for i in 1 2 3; do
        for port in "$demo_port" "$live_port"; do
            for target in /api/ships /api/lakes "/v1/weather?lat=60.17&lon=24.94" "/v1/warnings?lat=60.17&lon=24.94" /nowhere \
                "/v1/lake-weather?lat=47.37&lon=8.54" "/v1/places?lat=48.137&lon=11.575&categories=tourism.attraction" \
                "/v1/geocode?text=Zurich" "/v1/nsw/departures?stop=200060" /health; do
                curl -s -o /dev/null "http://127.0.0.1:$port$target" || true
            done
        done
        sleep 1
    done
    # Scrapes under way, the demo's first fetches, warnings and pushes done.
    for i in $(seq 1 60); do
        curl -sf "http://127.0.0.1:$prom_port/api/v1/query?query=pier_push_total" | grep -q '"result":\[{' && break
        sleep 0.5
    done
    sleep 3
    "$PIER_PYTHON/python" "$PIER_ROOT/scripts/lib/check_dashboards.py" "http://127.0.0.1:$prom_port" "$root/grafana/dashboards" "$root/prometheus/rules/pier.yml" \
        || { tail -n 5 "$work"/*.log >&2; exit 1; }
    )
}
