-- The change feed's notices with a body (Scheduling's ChangeFeed hears them on every process, the writer's own
-- included): `<topic> database <body>`, sent once the calling transaction commits, nothing if it rolls back.
-- NOTIFY's payload is at most 8,000 bytes: a caller sends its rows in chunks below that.
CREATE FUNCTION pier_announce(topic text, body text) RETURNS void LANGUAGE sql AS $$
    SELECT pg_notify('pier_data_changed', topic || ' database ' || body)
$$;

-- Next Wave's check-ins as Realtime publishes them (`wave_checkins`): the wave, station, lake and departure only —
-- never the rider, their name or the row's id (Supabase sent every column to every subscriber; the apps read none).
CREATE FUNCTION nextwave_checkin_public(wave_id text, station_id text, lake_id text, departure_at timestamptz)
RETURNS json LANGUAGE sql STABLE AS $$
    SELECT json_build_object(
        'wave_id', wave_id, 'station_id', station_id, 'lake_id', lake_id,
        'departure_at', to_char(departure_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"+00:00"'))
$$;

-- Every statement that inserts, changes or deletes check-ins — the routes, an upsert's update, the nightly archive,
-- a deleted user's cascade — announces what changed, one row per wave (the apps re-read a wave's count, so ten
-- check-ins to one departure in one statement say the same as one), ten rows to a notice (a row is at most about
-- 600 bytes of JSON). `commit_timestamp` is the transaction's start, as Supabase's walrus wrote it.
CREATE FUNCTION nextwave_checkins_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    stamp text := to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
    changed json[];
    body text;
BEGIN
    -- Each branch names only the transition tables its event has (PL/pgSQL plans a statement when it first runs).
    IF TG_OP = 'INSERT' THEN
        SELECT array_agg(json_build_object('record', nextwave_checkin_public(d.wave_id, d.station_id, d.lake_id, d.departure_at)))
        INTO changed FROM (SELECT DISTINCT ON (wave_id) * FROM new_rows) d;
    ELSIF TG_OP = 'UPDATE' THEN
        SELECT array_agg(json_build_object(
                   'record', nextwave_checkin_public(d.wave_id, d.station_id, d.lake_id, d.departure_at),
                   'old_record', nextwave_checkin_public(d.old_wave_id, d.old_station_id, d.old_lake_id, d.old_departure_at)))
        INTO changed
        FROM (SELECT DISTINCT ON (n.wave_id) n.wave_id, n.station_id, n.lake_id, n.departure_at,
                     o.wave_id AS old_wave_id, o.station_id AS old_station_id, o.lake_id AS old_lake_id, o.departure_at AS old_departure_at
              FROM new_rows n JOIN old_rows o USING (id)) d;
    ELSE
        SELECT array_agg(json_build_object('old_record', nextwave_checkin_public(d.wave_id, d.station_id, d.lake_id, d.departure_at)))
        INTO changed FROM (SELECT DISTINCT ON (wave_id) * FROM old_rows) d;
    END IF;
    FOR body IN
        SELECT json_build_object('type', TG_OP, 'commit_timestamp', stamp, 'rows', json_agg(c.row ORDER BY c.n))::text
        FROM unnest(changed) WITH ORDINALITY AS c(row, n)
        GROUP BY (c.n - 1) / 10
    LOOP
        PERFORM pier_announce('nextwave-checkin-rows', body);
    END LOOP;
    RETURN NULL;
END
$$;

CREATE TRIGGER nextwave_checkins_inserted AFTER INSERT ON nextwave_checkins
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION nextwave_checkins_changed();
CREATE TRIGGER nextwave_checkins_updated AFTER UPDATE ON nextwave_checkins
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION nextwave_checkins_changed();
CREATE TRIGGER nextwave_checkins_deleted AFTER DELETE ON nextwave_checkins
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION nextwave_checkins_changed();
