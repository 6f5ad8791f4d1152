-- What the warning notifier told (warning_notified) without foreign keys: a warning's fan-out inserts a row per
-- device, and the two keys' checks ran once per row after the insert — 1.15 s of a 3.8 s enqueue at 100,000 devices,
-- during which no push could go. What they kept is kept here instead:
-- - a device deleted (however: its app, APNs saying the token is gone, the retention) takes its rows along, by a
--   trigger once per deleting statement (the foreign key's cascade looked for each device's rows separately);
-- - a root's rows go when the notifier forgets the root (the same statement, Sources/WarningPush/WarningNotifier).
-- A device deleted while a fan-out that includes it is being written can leave one row behind naming no device:
-- it is never read (every read joins the subscriptions) and goes with its root.
ALTER TABLE warning_notified DROP CONSTRAINT warning_notified_device_id_fkey;
ALTER TABLE warning_notified DROP CONSTRAINT warning_notified_root_fkey;

CREATE FUNCTION warning_notified_forget_devices() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM warning_notified AS n USING gone WHERE n.device_id = gone.id;
    RETURN NULL;
END
$$;

CREATE TRIGGER warning_notified_forget_devices AFTER DELETE ON push_devices REFERENCING OLD TABLE AS gone
    FOR EACH STATEMENT EXECUTE FUNCTION warning_notified_forget_devices();
