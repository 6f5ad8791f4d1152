# Sourced by scripts/test: the deployment files checked without a Docker engine.
#   - docker-compose.yml validated by a real Compose implementation (Debian's docker-compose, `config`), and
#     checked to keep real client addresses for IPv4 and IPv6 (scripts/lib/compose_client_addresses.py); its `ha`
#     profile against deploy/db/patroni.yml (scripts/lib/compose_ha.py)
#   - Caddyfile validated by Debian's caddy
#   - the Dockerfile's build stage replayed from the Docker build context (the checkout minus .dockerignore:
#     its COPY lines, its manifest against the repository's, the product linked as its swift build links it:
#     scripts/lib/docker_build_replay.py), so a manifest or a COPY that `docker build` would choke on fails here; the binary's shared libraries checked against RUNTIME_PACKAGES
#   - the runtime stage run for real: bookworm minbase + RUNTIME_PACKAGES, the image's user, `pier serve --demo`
#     (scripts/lib/runtime_stage_check.sh)
# (The end-to-end test through a real Caddy is an XCTest: DeploymentTests.)
deployment_checks() {
    log "deployment: docker-compose config (.env.example as shipped must be refused, with test values accepted)"
    local scratch
    scratch="$(mktemp -d)"
    # Compose refuses .env.example as it is (POSTGRES_PASSWORD, SITE_ADDRESS and ACME_EMAIL are empty until an operator sets
    # them): checked once as shipped (it must refuse) and once with a test .env (it must accept).
    if docker-compose --project-directory "$PIER_ROOT" -f "$PIER_ROOT/docker-compose.yml" --env-file "$PIER_ROOT/.env.example" config -q 2>"$scratch/refused"; then
        die "docker-compose accepted .env.example as shipped: an empty POSTGRES_PASSWORD must be refused"
    fi
    grep -q POSTGRES_PASSWORD "$scratch/refused" || { cat "$scratch/refused" >&2; die "docker-compose refused .env.example, but not for POSTGRES_PASSWORD"; }
    sed -e 's/^POSTGRES_PASSWORD=.*/POSTGRES_PASSWORD=test-only-password/' -e 's/^ACME_EMAIL=.*/ACME_EMAIL=ops@example.org/' -e 's/^SITE_ADDRESS=.*/SITE_ADDRESS=api.example.org/' \
        "$PIER_ROOT/.env.example" >"$scratch/.env"
    cp "$PIER_ROOT/docker-compose.yml" "$scratch/"
    # The repository's deploy/ beside it: the database image's build context (deploy/db).
    ln -s "$PIER_ROOT/deploy" "$scratch/deploy"
    docker-compose --project-directory "$scratch" -f "$scratch/docker-compose.yml" --env-file "$scratch/.env" config -q
    log "deployment: real client addresses (IPv6 on the compose network, Caddy's hop trusted, no client-written X-Forwarded-For)"
    docker-compose --project-directory "$scratch" -f "$scratch/docker-compose.yml" --env-file "$scratch/.env" config \
        | python3 "$PIER_ROOT/scripts/lib/compose_client_addresses.py" "$PIER_ROOT/Caddyfile"
    log "deployment: the ha profile (three etcd, two Patroni nodes from deploy/db, the api on POSTGRES_HOSTS)"
    echo "POSTGRES_HOSTS=db1:5432,db2:5432" >>"$scratch/.env"
    docker-compose --project-directory "$scratch" -f "$scratch/docker-compose.yml" --env-file "$scratch/.env" --profile ha config \
        | python3 "$PIER_ROOT/scripts/lib/compose_ha.py" "$PIER_ROOT" 'postgres://pier@db1:5432,db2:5432/pier?target_session_attrs=read-write'
    rm -rf "$scratch"
    log "deployment: caddy validate"
    (cd "$(mktemp -d)" && HOME="$PWD" XDG_DATA_HOME="$PWD" XDG_CONFIG_HOME="$PWD" ACME_EMAIL=ops@example.org SITE_ADDRESS=api.example.org \
        caddy validate --config "$PIER_ROOT/Caddyfile" --adapter caddyfile 2>&1 | tail -n 1)
    log "deployment: the Dockerfile's build stage replayed from its build context (.build-docker)"
    if [ -n "${PIER_REPLAY_PID:-}" ]; then
        # Started beside the tests (scripts/test, when it compiles: PIER_REPLAY_CONFIGURATION=debug or release).
        wait "$PIER_REPLAY_PID" || true
    else
        replay_build_stage
    fi
    [ -e "$PIER_ROOT/.build-docker/replay.ok" ] \
        || { tail -n 30 "$PIER_ROOT/.build-docker/replay.log" >&2; die "the image's build stage does not build (log: .build-docker/replay.log)"; }
    tail -n 1 "$PIER_ROOT/.build-docker/replay.log"
    "$PIER_ROOT/scripts/lib/check_runtime_libs.sh" "$PIER_ROOT/.build-docker/root/out/pier" "$PIER_ROOT/Dockerfile"
    if [ -n "${PIER_PG_SOCKET_DIR:-}" ]; then
        log "deployment: the runtime stage (bookworm minbase + RUNTIME_PACKAGES, uid of the image's user)"
        runtime_stage_check "$PIER_ROOT/.build-docker"
    else
        log "deployment: WARNING: the runtime stage check needs the test cluster scripts/test starts (DATABASE_URL was given): not run"
    fi
}

# The Dockerfile's build stage replayed into .build-docker (its log replay.log; replay.ok when it built).
replay_build_stage() {
    mkdir -p "$PIER_ROOT/.build-docker"
    rm -f "$PIER_ROOT/.build-docker/replay.ok"
    python3 "$PIER_ROOT/scripts/lib/docker_build_replay.py" "$PIER_ROOT" "$PIER_ROOT/.build-docker" >"$PIER_ROOT/.build-docker/replay.log" 2>&1 \
        && touch "$PIER_ROOT/.build-docker/replay.ok"
}
