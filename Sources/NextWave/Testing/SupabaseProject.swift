/// A Next Wave Supabase project in miniature, for `pier import nextwave-supabase`'s test: the auth server's three tables
/// with the columns and types its migrations give them (auth.sessions.refreshed_at is a timestamp without time zone
/// there), and the app's tables as its migrations of June–August 2026 leave them (pfederi/Next-Wave, supabase/migrations).
/// Then a few riders: an anonymous user with a live session, a rotated (revoked) token and a current one; ride
/// history for the leaderboard; a badge already pushed; device tokens (one phone under two users); verified sessions; a
/// name from the app version without the 40-character cap.
public enum SupabaseProject {
    public static let sql = """
        CREATE SCHEMA auth;

        CREATE TABLE auth.users (
            instance_id uuid, id uuid PRIMARY KEY, aud varchar(255), role varchar(255), email varchar(255), encrypted_password varchar(255),
            email_confirmed_at timestamptz, invited_at timestamptz, confirmation_token varchar(255), confirmation_sent_at timestamptz,
            recovery_token varchar(255), recovery_sent_at timestamptz, email_change_token_new varchar(255), email_change varchar(255),
            email_change_sent_at timestamptz, last_sign_in_at timestamptz, raw_app_meta_data jsonb, raw_user_meta_data jsonb,
            is_super_admin boolean, created_at timestamptz, updated_at timestamptz, phone text UNIQUE, phone_confirmed_at timestamptz,
            banned_until timestamptz, deleted_at timestamptz, is_sso_user boolean NOT NULL DEFAULT false, is_anonymous boolean NOT NULL DEFAULT false);

        CREATE TABLE auth.sessions (
            id uuid PRIMARY KEY, user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE, created_at timestamptz,
            updated_at timestamptz, factor_id uuid, aal text, not_after timestamptz, refreshed_at timestamp without time zone,
            user_agent text, ip inet, tag text);

        CREATE TABLE auth.refresh_tokens (
            instance_id uuid, id bigserial PRIMARY KEY, token varchar(255) UNIQUE, user_id varchar(255), revoked boolean,
            created_at timestamptz, updated_at timestamptz, parent varchar(255),
            session_id uuid REFERENCES auth.sessions (id) ON DELETE CASCADE);

        CREATE TABLE public.wave_checkins (
            id uuid PRIMARY KEY DEFAULT gen_random_uuid(), wave_id text NOT NULL, user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE,
            display_name text, departure_at timestamptz NOT NULL, created_at timestamptz NOT NULL DEFAULT now(), station_id text, lake_id text,
            is_first_of_day boolean NOT NULL DEFAULT false, is_last_of_day boolean NOT NULL DEFAULT false, UNIQUE (wave_id, user_id));

        CREATE TABLE public.wave_history (
            user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE, wave_id text NOT NULL, station_id text NOT NULL, lake_id text NOT NULL,
            departure_at timestamptz NOT NULL, is_first_of_day boolean NOT NULL DEFAULT false, is_last_of_day boolean NOT NULL DEFAULT false,
            peer_count int NOT NULL DEFAULT 1, was_first_checkin boolean NOT NULL DEFAULT false, recorded_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (user_id, wave_id));

        CREATE TABLE public.user_profiles (
            user_id uuid PRIMARY KEY REFERENCES auth.users (id) ON DELETE CASCADE, display_name text, updated_at timestamptz NOT NULL DEFAULT now());

        CREATE TABLE public.user_badges (
            user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE, badge_id text NOT NULL, earned_at timestamptz NOT NULL DEFAULT now(),
            PRIMARY KEY (user_id, badge_id));

        CREATE TABLE public.device_tokens (
            user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE, token text NOT NULL, platform text NOT NULL DEFAULT 'ios',
            updated_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (user_id, token));

        CREATE TABLE public.verified_sessions (
            user_id uuid NOT NULL REFERENCES auth.users (id) ON DELETE CASCADE, session_key text NOT NULL, source text NOT NULL DEFAULT 'foilmotion',
            start_at timestamptz NOT NULL, end_at timestamptz NOT NULL, total_distance float8 NOT NULL, duration int NOT NULL, moving_time int NOT NULL,
            max_speed float8 NOT NULL, longest_ride float8 NOT NULL, recorded_at timestamptz NOT NULL DEFAULT now(), station_id text, lake_id text,
            PRIMARY KEY (user_id, session_key));

        -- Lisa (11111111-…): the rider whose install moves over — a session, a used token and the one her app holds now.
        -- Marco (22222222-…): second on the leaderboard. Phone (33333333-…): an install that only registered for pushes.
        INSERT INTO auth.users (instance_id, id, aud, role, created_at, updated_at, last_sign_in_at, raw_app_meta_data, raw_user_meta_data, is_anonymous) VALUES
            ('00000000-0000-0000-0000-000000000000', '11111111-1111-4111-8111-111111111111', 'authenticated', 'authenticated',
             '2026-06-20 08:00:00+00', '2026-11-20 08:00:00+00', '2026-06-20 08:00:00+00', '{}', '{}', true),
            ('00000000-0000-0000-0000-000000000000', '22222222-2222-4222-8222-222222222222', 'authenticated', 'authenticated',
             '2026-06-21 08:00:00+00', '2026-06-21 08:00:00+00', NULL, '{}', '{}', true),
            ('00000000-0000-0000-0000-000000000000', '33333333-3333-4333-8333-333333333333', 'authenticated', 'authenticated',
             '2026-07-01 08:00:00+00', '2026-07-01 08:00:00+00', '2026-07-01 08:00:00+00', '{}', '{}', true);

        INSERT INTO auth.sessions (id, user_id, created_at, updated_at, aal, refreshed_at) VALUES
            ('aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa', '11111111-1111-4111-8111-111111111111', '2026-06-20 08:00:00+00', '2026-11-20 08:00:00+00', 'aal1', '2026-11-20 08:00:00'),
            ('bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb', '22222222-2222-4222-8222-222222222222', '2026-06-21 08:00:00+00', '2026-06-21 08:00:00+00', 'aal1', NULL);

        INSERT INTO auth.refresh_tokens (instance_id, token, user_id, revoked, created_at, updated_at, parent, session_id) VALUES
            ('00000000-0000-0000-0000-000000000000', 'l1sa0ldt0ken', '11111111-1111-4111-8111-111111111111', true,
             '2026-06-20 08:00:00+00', '2026-11-20 08:00:00+00', NULL, 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'),
            ('00000000-0000-0000-0000-000000000000', 'l1sacurrent1', '11111111-1111-4111-8111-111111111111', false,
             '2026-11-20 08:00:00+00', '2026-11-20 08:00:00+00', 'l1sa0ldt0ken', 'aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa'),
            ('00000000-0000-0000-0000-000000000000', 'marc0current', '22222222-2222-4222-8222-222222222222', false,
             '2026-06-21 08:00:00+00', '2026-06-21 08:00:00+00', NULL, 'bbbbbbbb-bbbb-4bbb-8bbb-bbbbbbbbbbbb');

        -- Lisa's ride history: 12 waves at Thalwil (enough for her first badges), Marco's 3.
        INSERT INTO public.wave_history (user_id, wave_id, station_id, lake_id, departure_at, peer_count, was_first_checkin, recorded_at)
        SELECT '11111111-1111-4111-8111-111111111111', '8503674_2026-07-' || lpad(d::text, 2, '0') || 'T16:00:00Z_ZSG-12', 'Thalwil (See)_8503674', 'Zürichsee',
               make_timestamptz(2026, 7, d, 16, 0, 0, 'UTC'), 2, d = 1, make_timestamptz(2026, 7, d + 1, 1, 0, 0, 'UTC')
        FROM generate_series(1, 12) d;
        INSERT INTO public.wave_history (user_id, wave_id, station_id, lake_id, departure_at, recorded_at)
        SELECT '22222222-2222-4222-8222-222222222222', '8503674_2026-07-' || lpad(d::text, 2, '0') || 'T16:00:00Z_ZSG-12', 'Thalwil (See)_8503674', 'Zürichsee',
               make_timestamptz(2026, 7, d, 16, 0, 0, 'UTC'), make_timestamptz(2026, 7, d + 1, 1, 0, 0, 'UTC')
        FROM generate_series(1, 3) d;

        -- Lisa checked in for a departure an hour ago (the archive has not run yet) with the long name of an early version.
        INSERT INTO public.wave_checkins (wave_id, user_id, display_name, departure_at, created_at, station_id, lake_id) VALUES
            ('8503674_departed_ZSG-12', '11111111-1111-4111-8111-111111111111', '  Lisa from the lake with a name far longer than forty  ',
             now() - interval '1 hour', now() - interval '3 hours', 'Thalwil (See)_8503674', 'Zürichsee'),
            ('8503674_tomorrow_ZSG-12', '22222222-2222-4222-8222-222222222222', NULL, now() + interval '1 day', now(), 'Thalwil (See)_8503674', 'Zürichsee');

        INSERT INTO public.user_profiles (user_id, display_name, updated_at) VALUES
            ('11111111-1111-4111-8111-111111111111', 'Lisa', '2026-06-20 08:00:00+00'),
            ('22222222-2222-4222-8222-222222222222', 'Marco', '2026-06-21 08:00:00+00');

        -- Two of the badges Lisa's history earns, pushed already.
        INSERT INTO public.user_badges (user_id, badge_id, earned_at)
        SELECT '11111111-1111-4111-8111-111111111111', b, '2026-07-13 01:00:00+00' FROM unnest(ARRAY['first_wave', 'milestone_10']) b;

        -- One phone under two users (a reinstall's new identity): the newer registration keeps it.
        INSERT INTO public.device_tokens (user_id, token, platform, updated_at) VALUES
            ('33333333-3333-4333-8333-333333333333', 'AB12CD34EF56AB12CD34EF56AB12CD34EF56AB12CD34EF56AB12CD34EF56AB12', 'ios', '2026-07-01 08:00:00+00'),
            ('11111111-1111-4111-8111-111111111111', 'ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12cd34ef56ab12', 'ios', '2026-11-20 08:00:00+00'),
            ('22222222-2222-4222-8222-222222222222', '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef', 'ios', '2026-06-21 08:00:00+00');

        INSERT INTO public.verified_sessions (user_id, session_key, start_at, end_at, total_distance, duration, moving_time, max_speed, longest_ride, station_id, lake_id) VALUES
            ('11111111-1111-4111-8111-111111111111', repeat('a', 64), '2026-08-01 16:00:00+00', '2026-08-01 16:30:00+00', 1200.5, 1800, 900, 6.5, 450, 'Thalwil (See)_8503674', 'Zürichsee');
        """
}
