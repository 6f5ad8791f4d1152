-- App Attest (Sources/AppAttest): the devices whose keys an attestation proved genuine, and the challenges spent.
-- A device row is written only after a complete verification (Apple's chain, the nonce, the key id, the app, the
-- environment), so random callers cannot add rows; `counter` only grows, by compare-and-set across replicas.
-- `receipt` is Apple's, kept for fraud-metric requests. Challenges are recognised by their MAC (no row when issued);
-- a row records one spent, so it cannot be spent twice, and is dropped once expired.
CREATE TABLE app_attest_devices (
    key_id      bytea PRIMARY KEY CHECK (octet_length(key_id) = 32),
    public_key  bytea NOT NULL CHECK (octet_length(public_key) = 65),
    counter     bigint NOT NULL CHECK (counter >= 0 AND counter <= 4294967295),
    app         text NOT NULL,
    environment text NOT NULL CHECK (environment IN ('production', 'development')),
    receipt     bytea NOT NULL,
    first_seen  timestamptz NOT NULL DEFAULT now(),
    last_seen   timestamptz NOT NULL DEFAULT now(),
    revoked_at  timestamptz
);

CREATE INDEX app_attest_devices_revoked_idx ON app_attest_devices (revoked_at) WHERE revoked_at IS NOT NULL;

CREATE TABLE app_attest_spent_challenges (
    challenge  bytea PRIMARY KEY,
    expires_at timestamptz NOT NULL
);

CREATE INDEX app_attest_spent_challenges_expires_idx ON app_attest_spent_challenges (expires_at);
