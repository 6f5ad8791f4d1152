# syntax=docker/dockerfile:1
# Pier: build with the official Swift image (same toolchain as development), run on slim Debian as a
# non-root user. The Swift runtime is linked statically; the runtime stage installs only the shared
# libraries the binary links (checked in CI by scripts/lib/check_runtime_libs.sh against RUNTIME_PACKAGES).

FROM swift:6.3.1-bookworm AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends libcurl4-openssl-dev libxml2-dev libpq-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Dependencies first, so a source change does not refetch them.
COPY Package.swift ./
RUN swift package resolve
COPY Sources ./Sources
# Build steps of the package's own: openapi.yaml embedded as /openapi.json's document.
COPY Plugins ./Plugins
COPY openapi.yaml ./
RUN swift build -c release --static-swift-stdlib --product pier \
    && install -D "$(swift build -c release --show-bin-path)/pier" /out/pier

FROM debian:bookworm-slim
ARG RUNTIME_PACKAGES="libcurl4 libxml2 libpq5 ca-certificates tzdata"
RUN apt-get update \
    && apt-get install -y --no-install-recommends ${RUNTIME_PACKAGES} \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin pier \
    && install -d -o pier -g pier /app/captures
WORKDIR /app
COPY --from=build /out/pier /usr/local/bin/pier
COPY Migrations ./Migrations
# The recordings `pier serve --demo` replays (offline, into the database <name>_demo).
COPY Demo ./Demo
# /app/captures: where compose's `captures` volume is mounted (PIER_SAVE_SUSPECT_DIR); owned by pier, so a new
# named volume starts out writable by it.
USER pier
ENV HOST=0.0.0.0 PORT=8080 PIER_MIGRATIONS_DIR=/app/Migrations PIER_DEMO_DIR=/app/Demo
EXPOSE 8080
STOPSIGNAL SIGTERM
# Liveness, not readiness: `pier health-check` asks /health/live, which answers while the process serves, so a
# database outage never gets replicas that still serve cached data restarted.
HEALTHCHECK --interval=10s --timeout=5s --start-period=30s --retries=3 CMD ["pier", "health-check"]
ENTRYPOINT ["pier"]
CMD ["serve"]
