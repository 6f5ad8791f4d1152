-- The check-in trigger's notices are now the one announcement of a check-in change: they feed every replica's memory
-- (the counts) as well as Realtime's subscribers, and the store announces nothing more. So a statement must be heard
-- even when each of its rows is left out of the notices for its size (0035): it then announces no rows — "check-ins
-- changed" — and the replicas drop their counts.
CREATE OR REPLACE FUNCTION nextwave_checkins_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    stamp text := to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
    -- NOTIFY's payload must be shorter than 8,000 bytes; pier_announce adds the topic and ' database '.
    budget constant int := 7999 - octet_length('nextwave-checkin-rows database ');
    head text := '{"type":"' || TG_OP || '","commit_timestamp":"' || stamp || '","rows":[';
    changed json[];
    item json;
    piece text;
    gathered text := '';
    skipped boolean := false;
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
    FOREACH item IN ARRAY coalesce(changed, '{}') LOOP
        piece := item::text;
        IF octet_length(head) + octet_length(piece) + 2 > budget THEN
            RAISE WARNING 'a check-in change of % bytes is left out of the notices', octet_length(piece);
            skipped := true;
            CONTINUE;
        END IF;
        IF gathered <> '' AND octet_length(head) + octet_length(gathered) + 1 + octet_length(piece) + 2 > budget THEN
            PERFORM pier_announce('nextwave-checkin-rows', head || gathered || ']}');
            gathered := '';
        END IF;
        gathered := CASE WHEN gathered = '' THEN piece ELSE gathered || ',' || piece END;
    END LOOP;
    -- A statement whose every row was left out still says that check-ins changed (no rows): the replicas' counts.
    IF gathered <> '' OR skipped THEN
        PERFORM pier_announce('nextwave-checkin-rows', head || gathered || ']}');
    END IF;
    RETURN NULL;
END
$$;
