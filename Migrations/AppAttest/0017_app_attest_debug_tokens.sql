-- App Attest's debug devices (the Simulator, CI, an app extension: where App Attest cannot attest): an operator names
-- one with `pier app-attest debug-token create NAME`, which prints its token once; only the token's SHA-256 is kept.
-- With PIER_APP_ATTEST_DEBUG=on, POST /v1/app-attest/debug exchanges the token for an X-Pier-App-Token counted as the
-- device debug/NAME. A revoked row stays, so a name always means the same device in metrics and logs.
CREATE TABLE app_attest_debug_tokens (
    name       text PRIMARY KEY CHECK (name ~ '^[A-Za-z0-9._-]{1,64}$'),
    token_hash bytea NOT NULL UNIQUE CHECK (octet_length(token_hash) = 32),
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);
