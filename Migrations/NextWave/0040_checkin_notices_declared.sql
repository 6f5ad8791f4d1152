-- Check-ins' notices are declared once (0039's pier_announce_rows) instead of by a trigger written for them: the wave,
-- station, lake and departure only — never the rider, their name or the row's id (Supabase sent every column to every
-- subscriber; the apps read none) —, one row per wave, under the topic Next Wave's Swift reads from this declaration.
-- The bodies are the same bytes 0037's trigger wrote.
DROP TRIGGER nextwave_checkins_inserted ON nextwave_checkins;
DROP TRIGGER nextwave_checkins_updated ON nextwave_checkins;
DROP TRIGGER nextwave_checkins_deleted ON nextwave_checkins;
DROP FUNCTION nextwave_checkins_changed();
DROP FUNCTION nextwave_checkin_public(text, text, text, timestamptz);
SELECT pier_announce_rows('nextwave_checkins', 'nextwave-checkin-rows', 'id', 'wave_id', ARRAY['wave_id', 'station_id', 'lake_id', 'departure_at']);
