-- Next Wave's community (Sources/NextWave): what the app's second backend, a self-hosted Supabase, held — anonymous
-- users and their sessions, live check-ins, the ride history, leaderboard names, badges already notified, device
-- tokens and Foilmotion-verified sessions. Every user-owned row goes with its user (`DELETE /auth/v1/user`). Ids the
-- app builds (wave, station, lake) are opaque text, bounded in length. No client address is stored anywhere.

-- An anonymous user (Supabase auth's `auth.users`, the columns the apps see).
CREATE TABLE nextwave_users (
    id              uuid PRIMARY KEY,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    last_sign_in_at timestamptz NOT NULL DEFAULT now()
);

-- A signed-in device's session; its refresh tokens rotate within it.
CREATE TABLE nextwave_sessions (
    id           uuid PRIMARY KEY,
    user_id      uuid NOT NULL REFERENCES nextwave_users (id) ON DELETE CASCADE,
    created_at   timestamptz NOT NULL DEFAULT now(),
    refreshed_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX nextwave_sessions_user ON nextwave_sessions (user_id);
-- Idle sessions are deleted after PIER_NEXTWAVE_SESSION_IDLE_D days (the prune).
CREATE INDEX nextwave_sessions_refreshed ON nextwave_sessions (refreshed_at);

-- Refresh tokens by their SHA-256, hex (a token is a credential: never stored as given). Used once: the refresh marks
-- it rotated and issues its child, which is derived from it with the server's key (so the child need not be stored);
-- the same token again within a few seconds (two requests of one app racing) gets that child again, later it ends the
-- whole session (a stolen token replayed).
CREATE TABLE nextwave_refresh_tokens (
    token_hash text PRIMARY KEY,
    session_id uuid NOT NULL REFERENCES nextwave_sessions (id) ON DELETE CASCADE,
    created_at timestamptz NOT NULL DEFAULT now(),
    rotated_at timestamptz
);
CREATE INDEX nextwave_refresh_tokens_session ON nextwave_refresh_tokens (session_id);

-- Live intent to ride a wave (Supabase's `wave_checkins`): one per user and wave, archived into the history after
-- the departure.
CREATE TABLE nextwave_checkins (
    wave_id         text NOT NULL CHECK (length(wave_id) BETWEEN 1 AND 200),
    user_id         uuid NOT NULL REFERENCES nextwave_users (id) ON DELETE CASCADE,
    id              uuid NOT NULL DEFAULT gen_random_uuid() UNIQUE,
    display_name    text CHECK (length(display_name) BETWEEN 1 AND 40),
    departure_at    timestamptz NOT NULL,
    created_at      timestamptz NOT NULL DEFAULT now(),
    station_id      text CHECK (length(station_id) BETWEEN 1 AND 200),
    lake_id         text CHECK (length(lake_id) BETWEEN 1 AND 100),
    is_first_of_day boolean NOT NULL DEFAULT false,
    is_last_of_day  boolean NOT NULL DEFAULT false,
    PRIMARY KEY (wave_id, user_id)
);
CREATE INDEX nextwave_checkins_departure ON nextwave_checkins (departure_at);
CREATE INDEX nextwave_checkins_user ON nextwave_checkins (user_id);

-- Ridden waves, permanent (`wave_history`): written only by the nightly archive.
CREATE TABLE nextwave_history (
    user_id           uuid NOT NULL REFERENCES nextwave_users (id) ON DELETE CASCADE,
    wave_id           text NOT NULL,
    station_id        text NOT NULL,
    lake_id           text NOT NULL,
    departure_at      timestamptz NOT NULL,
    is_first_of_day   boolean NOT NULL DEFAULT false,
    is_last_of_day    boolean NOT NULL DEFAULT false,
    peer_count        integer NOT NULL DEFAULT 1,
    was_first_checkin boolean NOT NULL DEFAULT false,
    recorded_at       timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, wave_id)
);
CREATE INDEX nextwave_history_station ON nextwave_history (station_id);

-- The leaderboard's name (`user_profiles`); null: anonymous.
CREATE TABLE nextwave_profiles (
    user_id      uuid PRIMARY KEY REFERENCES nextwave_users (id) ON DELETE CASCADE,
    display_name text CHECK (length(display_name) BETWEEN 1 AND 40),
    updated_at   timestamptz NOT NULL DEFAULT now()
);

-- Badges already notified (`user_badges`), so that none is pushed twice.
CREATE TABLE nextwave_badges (
    user_id   uuid NOT NULL REFERENCES nextwave_users (id) ON DELETE CASCADE,
    badge_id  text NOT NULL,
    earned_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, badge_id)
);

-- A device's APNs token under one user (`device_tokens`): the token itself is the push engine's device
-- (push_devices); registered again under another user, it moves.
CREATE TABLE nextwave_devices (
    device_id  uuid PRIMARY KEY REFERENCES push_devices (id) ON DELETE CASCADE,
    user_id    uuid NOT NULL REFERENCES nextwave_users (id) ON DELETE CASCADE,
    platform   text NOT NULL DEFAULT 'ios' CHECK (length(platform) BETWEEN 1 AND 20),
    updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX nextwave_devices_user ON nextwave_devices (user_id);

-- Foilmotion imports' aggregates (`verified_sessions`); a re-import is the same key and changes nothing. The
-- figures may be null as in Supabase's table (an export carries what it holds).
CREATE TABLE nextwave_verified_sessions (
    user_id        uuid NOT NULL REFERENCES nextwave_users (id) ON DELETE CASCADE,
    session_key    text NOT NULL CHECK (length(session_key) BETWEEN 1 AND 128),
    source         text NOT NULL DEFAULT 'foilmotion' CHECK (length(source) BETWEEN 1 AND 40),
    start_at       timestamptz,
    end_at         timestamptz,
    total_distance double precision CHECK (total_distance >= 0),
    duration       integer CHECK (duration >= 0),
    moving_time    integer CHECK (moving_time >= 0),
    max_speed      double precision CHECK (max_speed >= 0),
    longest_ride   double precision CHECK (longest_ride >= 0),
    recorded_at    timestamptz NOT NULL DEFAULT now(),
    station_id     text CHECK (length(station_id) BETWEEN 1 AND 200),
    lake_id        text CHECK (length(lake_id) BETWEEN 1 AND 100),
    PRIMARY KEY (user_id, session_key)
);
