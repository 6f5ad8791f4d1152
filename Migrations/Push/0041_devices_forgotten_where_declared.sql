-- Other modules keep rows about Push's devices without a foreign key (the warnings' notified devices: 0026 dropped the
-- key for the fan-out's speed), and those rows must go with their devices. 0026 did it with WarningPush's own trigger
-- on this table — another module's code on Push's table, unseen by Push. Now Push offers it: a module declares once,
-- in its migration, which of its tables' columns name a device (`push_forget_devices_in`), and Push's one statement
-- trigger deletes their rows with the devices, however the devices go (their app, APNs saying a token is gone, the
-- retention). This table carries Push's triggers alone: any other is dropped here.
CREATE TABLE push_device_followers (
    table_name  text PRIMARY KEY,
    column_name text NOT NULL
);

CREATE FUNCTION push_devices_forgotten() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    follower push_device_followers%ROWTYPE;
BEGIN
    FOR follower IN SELECT * FROM push_device_followers ORDER BY table_name LOOP
        EXECUTE format('DELETE FROM %I AS f USING gone WHERE f.%I = gone.id', follower.table_name, follower.column_name);
    END LOOP;
    RETURN NULL;
END
$$;

-- Declares that `table_name.column_name` names devices: its rows go with them. Rows already naming no device go now.
CREATE FUNCTION push_forget_devices_in(table_name text, column_name text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_attribute WHERE attrelid = table_name::regclass AND attname = column_name AND attnum > 0 AND NOT attisdropped) THEN
        RAISE EXCEPTION '% has no column %', table_name, column_name;
    END IF;
    INSERT INTO push_device_followers VALUES (table_name, column_name)
    ON CONFLICT ON CONSTRAINT push_device_followers_pkey DO UPDATE SET column_name = EXCLUDED.column_name;
    EXECUTE format('DELETE FROM %I AS f WHERE NOT EXISTS (SELECT 1 FROM push_devices d WHERE d.id = f.%I)', table_name, column_name);
END
$$;

DO $$
DECLARE
    other name;
BEGIN
    FOR other IN SELECT tgname FROM pg_trigger WHERE tgrelid = 'push_devices'::regclass AND NOT tgisinternal LOOP
        EXECUTE format('DROP TRIGGER %I ON push_devices', other);
    END LOOP;
END
$$;

CREATE TRIGGER push_devices_forgotten AFTER DELETE ON push_devices REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION push_devices_forgotten();
