-- A name of 40 characters as the app counts them (Swift's Characters: "🏄‍♀️" is one, of four code points) can be longer
-- in code points, which is what length() counts: 0027's checks refused names the app accepts. The community keeps the
-- app's 40 characters (Sources/NextWave/DisplayName.swift); the tables bound the code points.
ALTER TABLE nextwave_checkins
    DROP CONSTRAINT nextwave_checkins_display_name_check,
    ADD CONSTRAINT nextwave_checkins_display_name_check CHECK (length(display_name) BETWEEN 1 AND 200);
ALTER TABLE nextwave_profiles
    DROP CONSTRAINT nextwave_profiles_display_name_check,
    ADD CONSTRAINT nextwave_profiles_display_name_check CHECK (length(display_name) BETWEEN 1 AND 200);

-- 0027 says idle sessions are pruned: none are. A session lasts until it is signed out, its refresh token is replayed,
-- or its user is deleted — as with the auth server's defaults, so an install not opened for months keeps its identity.
-- Its used refresh tokens are forgotten a day after their use (AuthStore.refresh), which bounds its rows.
