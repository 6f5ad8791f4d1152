-- A table's changed rows announced to every process (Scheduling's RowNotices), declared once, here in the database:
-- `pier_announce_rows(table, topic, key, coalescing, columns)` records which columns of which table travel under which
-- topic, and puts the table's three statement triggers in place. Pier reads the declaration (topic, columns and their
-- types) at start, so neither the topic nor the columns are written anywhere else. Check-ins were the first
-- (Migrations/0033, 0035, 0037 wrote their trigger by hand; 0040 moves them here).
--
-- A notice's body: {"type": TG_OP, "commit_timestamp": the transaction's start in UTC with milliseconds, "rows": [
-- {"record": {...}, "old_record": {...}}, …]}, one row per value of the coalescing column (subscribers re-read what it
-- names, so ten changes to one wave in a statement say what one says), each value text or null — a timestamptz as
-- `YYYY-MM-DDTHH:MM:SS+00:00`, as Supabase's walrus wrote it —, gathered into notices by bytes under NOTIFY's 8,000.
-- A row too large for a notice (a later migration widening a column) is left out with a warning, and the statement
-- still announces itself with no rows: no value a row may hold fails the statement that wrote it.
CREATE TABLE pier_row_notices (
    table_name text PRIMARY KEY,
    topic      text NOT NULL UNIQUE CHECK (topic ~ '^[a-z0-9.-]{1,100}$'),
    key_column text NOT NULL,
    coalescing text NOT NULL,
    columns    text[] NOT NULL CHECK (cardinality(columns) BETWEEN 1 AND 100)
);

-- The SQL of a json object of `columns`, read from the row `alias` (a composite value, `(d.n)`).
CREATE FUNCTION pier_row_notice_record(table_name text, columns text[], alias text) RETURNS text LANGUAGE sql STABLE AS $$
    SELECT 'json_build_object(' || string_agg(
        format('%L, %s', c.name, CASE
            WHEN a.atttypid = 'timestamptz'::regtype
                THEN format('to_char(%s.%I AT TIME ZONE ''UTC'', ''YYYY-MM-DD"T"HH24:MI:SS"+00:00"'')', alias, c.name)
            ELSE format('%s.%I::text', alias, c.name) END),
        ', ' ORDER BY c.n) || ')'
    FROM unnest(columns) WITH ORDINALITY AS c(name, n)
    JOIN pg_attribute a ON a.attrelid = table_name::regclass AND a.attname = c.name AND NOT a.attisdropped
$$;

CREATE FUNCTION pier_rows_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    declared pier_row_notices%ROWTYPE;
    stamp text := to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"');
    head text := '{"type":"' || TG_OP || '","commit_timestamp":"' || stamp || '","rows":[';
    budget int;
    changed json[];
    item json;
    piece text;
    gathered text := '';
    skipped boolean := false;
BEGIN
    SELECT * INTO STRICT declared FROM pier_row_notices WHERE table_name = TG_TABLE_NAME;
    -- NOTIFY's payload must be shorter than 8,000 bytes; pier_announce adds the topic and ' database '.
    budget := 7999 - octet_length(declared.topic || ' database ');
    -- Each branch names only the transition tables its event has.
    IF TG_OP = 'INSERT' THEN
        EXECUTE format('SELECT array_agg(json_build_object(''record'', %s)) FROM (SELECT DISTINCT ON (n.%I) n FROM new_rows n) d',
            pier_row_notice_record(TG_TABLE_NAME, declared.columns, '(d.n)'), declared.coalescing) INTO changed;
    ELSIF TG_OP = 'UPDATE' THEN
        EXECUTE format('SELECT array_agg(json_build_object(''record'', %s, ''old_record'', %s)) '
                || 'FROM (SELECT DISTINCT ON (n.%I) n, o FROM new_rows n JOIN old_rows o USING (%I)) d',
            pier_row_notice_record(TG_TABLE_NAME, declared.columns, '(d.n)'),
            pier_row_notice_record(TG_TABLE_NAME, declared.columns, '(d.o)'), declared.coalescing, declared.key_column) INTO changed;
    ELSE
        EXECUTE format('SELECT array_agg(json_build_object(''old_record'', %s)) FROM (SELECT DISTINCT ON (o.%I) o FROM old_rows o) d',
            pier_row_notice_record(TG_TABLE_NAME, declared.columns, '(d.o)'), declared.coalescing) INTO changed;
    END IF;
    FOREACH item IN ARRAY coalesce(changed, '{}') LOOP
        piece := item::text;
        IF octet_length(head) + octet_length(piece) + 2 > budget THEN
            RAISE WARNING 'a change of % bytes to % is left out of the notices', octet_length(piece), TG_TABLE_NAME;
            skipped := true;
            CONTINUE;
        END IF;
        IF gathered <> '' AND octet_length(head) + octet_length(gathered) + 1 + octet_length(piece) + 2 > budget THEN
            PERFORM pier_announce(declared.topic, head || gathered || ']}');
            gathered := '';
        END IF;
        gathered := CASE WHEN gathered = '' THEN piece ELSE gathered || ',' || piece END;
    END LOOP;
    -- A statement whose every row was left out still says that rows changed (no rows): every replica's memory hears it.
    IF gathered <> '' OR skipped THEN
        PERFORM pier_announce(declared.topic, head || gathered || ']}');
    END IF;
    RETURN NULL;
END
$$;

-- The declaration: the owner of `table_name` calls it from its migration (again to change it). Every named column
-- must exist; the triggers are `<table>_rows_inserted`, `_updated` and `_deleted`.
CREATE FUNCTION pier_announce_rows(table_name text, topic text, key_column text, coalescing text, columns text[])
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    missing text;
BEGIN
    SELECT c INTO missing FROM unnest(columns || key_column || coalescing) AS c
    WHERE NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = table_name::regclass AND a.attname = c AND a.attnum > 0 AND NOT a.attisdropped)
    LIMIT 1;
    IF missing IS NOT NULL THEN
        RAISE EXCEPTION '% has no column %', table_name, missing;
    END IF;
    INSERT INTO pier_row_notices VALUES (table_name, topic, key_column, coalescing, columns)
    ON CONFLICT ON CONSTRAINT pier_row_notices_pkey DO UPDATE
        SET topic = EXCLUDED.topic, key_column = EXCLUDED.key_column, coalescing = EXCLUDED.coalescing, columns = EXCLUDED.columns;
    EXECUTE format('CREATE OR REPLACE TRIGGER %I AFTER INSERT ON %I REFERENCING NEW TABLE AS new_rows '
        || 'FOR EACH STATEMENT EXECUTE FUNCTION pier_rows_changed()', table_name || '_rows_inserted', table_name);
    EXECUTE format('CREATE OR REPLACE TRIGGER %I AFTER UPDATE ON %I REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows '
        || 'FOR EACH STATEMENT EXECUTE FUNCTION pier_rows_changed()', table_name || '_rows_updated', table_name);
    EXECUTE format('CREATE OR REPLACE TRIGGER %I AFTER DELETE ON %I REFERENCING OLD TABLE AS old_rows '
        || 'FOR EACH STATEMENT EXECUTE FUNCTION pier_rows_changed()', table_name || '_rows_deleted', table_name);
END
$$;
