-- 0033 announced check-ins ten rows to a notice, counting rows. A row is not "about 600 bytes": every published value
-- is bounded in characters (wave and station 200, lake 100), and JSON writes a control character in six bytes, a
-- quote in two, so ten rows of one rider's strangest ids passed NOTIFY's 8,000-byte limit — and the statement failed:
-- the nightly archive for everyone, a check-out, an account's deletion. Now rows are gathered by bytes.
--
-- Why one row always fits: (200 + 200 + 100) characters × 6 bytes + names, quotes and the departure ≈ 3,100 bytes
-- a record; an update carries two, ≈ 6,300 with the envelope, under the 7,900 the body may take after the topic.
-- Should a later migration widen a column past that, the row is left out of the notices with a warning (its
-- subscribers re-read the counts at the next change) rather than ever failing the statement that wrote it.
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
            CONTINUE;
        END IF;
        IF gathered <> '' AND octet_length(head) + octet_length(gathered) + 1 + octet_length(piece) + 2 > budget THEN
            PERFORM pier_announce('nextwave-checkin-rows', head || gathered || ']}');
            gathered := '';
        END IF;
        gathered := CASE WHEN gathered = '' THEN piece ELSE gathered || ',' || piece END;
    END LOOP;
    IF gathered <> '' THEN
        PERFORM pier_announce('nextwave-checkin-rows', head || gathered || ']}');
    END IF;
    RETURN NULL;
END
$$;
