-- The data export `pier import nextwave-supabase DIR` reads: run with psql against the Next Wave Supabase project's
-- database, as a role that can read the auth schema (`postgres` or `supabase_admin`), in an empty directory:
--
--     psql "postgresql://postgres:…@db-host:5432/postgres" -v ON_ERROR_STOP=1 -f supabase-export.sql
--
-- It writes nine CSV files (PostgreSQL's CSV with a header row) into the current directory. Run it after the apps
-- have been switched to Pier, or with Supabase stopped for writes: whatever is written to Supabase afterwards is not
-- carried over. Everything is read in one snapshot, so the files agree with each other.
--
-- Only what Pier keeps is exported: no e-mail, phone, password, metadata or client addresses (anonymous users have
-- none), no push_config (Pier signs its own APNs token), no lake_water_levels (Pier records the levels itself).
-- Refresh tokens: only the unused ones (the one each app holds); a used one cannot be used again anyway.

\set QUIET on
BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY;
SET LOCAL TimeZone = 'UTC';
SET LOCAL DateStyle = 'ISO';
\copy (SELECT id, created_at, updated_at, last_sign_in_at FROM auth.users ORDER BY created_at, id) TO 'users.csv' WITH (FORMAT csv, HEADER)
\copy (SELECT id, user_id, created_at, coalesce(refreshed_at, updated_at, created_at) AS refreshed_at FROM auth.sessions ORDER BY created_at, id) TO 'sessions.csv' WITH (FORMAT csv, HEADER)
\copy (SELECT token, session_id, created_at FROM auth.refresh_tokens WHERE NOT coalesce(revoked, false) AND session_id IS NOT NULL ORDER BY id) TO 'refresh_tokens.csv' WITH (FORMAT csv, HEADER)
\copy (SELECT id, wave_id, user_id, display_name, departure_at, created_at, station_id, lake_id, is_first_of_day, is_last_of_day FROM public.wave_checkins ORDER BY created_at, id) TO 'wave_checkins.csv' WITH (FORMAT csv, HEADER)
\copy (SELECT user_id, wave_id, station_id, lake_id, departure_at, is_first_of_day, is_last_of_day, peer_count, was_first_checkin, recorded_at FROM public.wave_history ORDER BY user_id, departure_at, wave_id) TO 'wave_history.csv' WITH (FORMAT csv, HEADER)
\copy (SELECT user_id, display_name, updated_at FROM public.user_profiles ORDER BY user_id) TO 'user_profiles.csv' WITH (FORMAT csv, HEADER)
\copy (SELECT user_id, badge_id, earned_at FROM public.user_badges ORDER BY user_id, badge_id) TO 'user_badges.csv' WITH (FORMAT csv, HEADER)
\copy (SELECT user_id, token, platform, updated_at FROM public.device_tokens ORDER BY updated_at, user_id) TO 'device_tokens.csv' WITH (FORMAT csv, HEADER)
\copy (SELECT user_id, session_key, source, start_at, end_at, total_distance, duration, moving_time, max_speed, longest_ride, recorded_at, station_id, lake_id FROM public.verified_sessions ORDER BY user_id, recorded_at, session_key) TO 'verified_sessions.csv' WITH (FORMAT csv, HEADER)
COMMIT;
\echo 'wrote users.csv sessions.csv refresh_tokens.csv wave_checkins.csv wave_history.csv user_profiles.csv user_badges.csv device_tokens.csv verified_sessions.csv'
