-- Official warnings pushed to the places people saved (Sources/WarningPush). A registration is a push device
-- (push_devices, Migrations/0020_push.sql) with what it asked for: its places (rounded to about a kilometre), the
-- least severity worth a push, its language, whether it wants an all-clear, and the hash of the secret that lets its
-- app change or delete it.
CREATE TABLE warning_subscriptions (
    device_id    uuid PRIMARY KEY REFERENCES push_devices (id) ON DELETE CASCADE,
    -- SHA-256 of the bearer secret, hex
    secret_hash  text NOT NULL,
    language     text NOT NULL CHECK (language IN ('fi', 'sv', 'en')),
    places       geometry(MultiPoint, 4326) NOT NULL,
    -- 2 moderate (yellow), 3 severe (orange), 4 extreme (red): CAP's severities as weather_warnings numbers them
    min_severity smallint NOT NULL CHECK (min_severity BETWEEN 2 AND 4),
    all_clear    boolean NOT NULL DEFAULT false,
    updated_at   timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX warning_subscriptions_places ON warning_subscriptions USING gist (places);

-- A warning as the notifier knows it, by its root (the identifier of the Alert its Updates reference): what it told
-- devices, so that an Update notifies only where it says more, and what an all-clear says when it ends. Kept until a
-- week after it ended, so that a warning the feed still lists after a restart is never notified again.
CREATE TABLE warning_push_roots (
    root        text PRIMARY KEY,
    headline_en text NOT NULL,
    headline_fi text NOT NULL,
    headline_sv text NOT NULL,
    expires     timestamptz NOT NULL,
    -- when it ended (a Cancel, left the feed, or expired) and the all-clears were enqueued
    ended_at    timestamptz
);

-- Which devices were told about which warning, at which severity.
CREATE TABLE warning_notified (
    device_id uuid NOT NULL REFERENCES push_devices (id) ON DELETE CASCADE,
    root      text NOT NULL REFERENCES warning_push_roots (root) ON DELETE CASCADE,
    severity  smallint NOT NULL,
    PRIMARY KEY (root, device_id)
);
