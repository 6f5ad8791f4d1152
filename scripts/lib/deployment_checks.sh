# Sourced by scripts/test: the deployment files checked without a Docker engine.
#   - docker-compose.yml validated by a real Compose implementation (Debian's docker-compose, `config`)
#   - Caddyfile validated by Debian's caddy
#   - the release build with the static Swift runtime made, and its shared libraries checked against the
#     Dockerfile's runtime stage
# (The end-to-end test through a real Caddy is an XCTest: DeploymentTests.)
deployment_checks() {
    log "deployment: docker-compose config (with .env.example)"
    docker-compose --project-directory "$PIER_ROOT" -f "$PIER_ROOT/docker-compose.yml" --env-file "$PIER_ROOT/.env.example" config -q
    log "deployment: caddy validate"
    (cd "$(mktemp -d)" && HOME="$PWD" XDG_DATA_HOME="$PWD" XDG_CONFIG_HOME="$PWD" \
        caddy validate --config "$PIER_ROOT/Caddyfile" --adapter caddyfile 2>&1 | tail -n 1)
    log "deployment: release build with the static Swift runtime"
    swift build -c release --static-swift-stdlib --product pier --scratch-path "$PIER_ROOT/.build-static" >/dev/null
    "$PIER_ROOT/scripts/lib/check_runtime_libs.sh" "$PIER_ROOT/.build-static/release/pier" "$PIER_ROOT/Dockerfile"
}
