-- Push (Sources/Push): the devices Pier may notify and the outbox every replica delivers from.
--
-- A device is an APNs token in one environment; the feature that registered it keeps what it needs beside it (a
-- table of its own referring to push_devices, deleted with it). The outbox holds one row per push to one device; a
-- feature's key for the push (the warning's identifier and why) is unique per device, so a push enqueued again — by a
-- second replica, after a restart — is not added twice, and delivered rows stay (until PIER_PUSH_KEEP_D days) to keep
-- it so. A replica claims due rows with FOR UPDATE SKIP LOCKED and a lease: killed mid-batch, its rows are claimed again
-- only once the lease is over.
CREATE TABLE push_devices (
    id          uuid PRIMARY KEY,
    -- lower-case hex, as APNs writes it
    token       text NOT NULL UNIQUE,
    environment text NOT NULL CHECK (environment IN ('production', 'development')),
    created_at  timestamptz NOT NULL DEFAULT now(),
    seen_at     timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX push_devices_seen ON push_devices (seen_at);

CREATE TABLE push_outbox (
    id           bigserial PRIMARY KEY,
    device_id    uuid NOT NULL REFERENCES push_devices (id) ON DELETE CASCADE,
    push_key     text NOT NULL,
    payload      text NOT NULL,
    collapse_id  text,
    expires_at   timestamptz NOT NULL,
    priority     smallint NOT NULL DEFAULT 10 CHECK (priority IN (1, 5, 10)),
    push_type    text NOT NULL DEFAULT 'alert',
    -- pending → delivered | rejected (APNs refused it as it is) | expired (its time passed before it went) | failed
    -- (retried until PIER_PUSH_MAX_ATTEMPTS)
    state        text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'delivered', 'rejected', 'expired', 'failed')),
    attempts     integer NOT NULL DEFAULT 0,
    due_at       timestamptz NOT NULL DEFAULT now(),
    leased_until timestamptz,
    -- APNs' reason for the last answer that was no success
    last_reason  text,
    created_at   timestamptz NOT NULL DEFAULT now(),
    finished_at  timestamptz,
    UNIQUE (device_id, push_key)
);

CREATE INDEX push_outbox_due ON push_outbox (due_at) WHERE state = 'pending';
CREATE INDEX push_outbox_finished ON push_outbox (finished_at) WHERE state <> 'pending';
