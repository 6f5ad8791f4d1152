-- The `backup` service (deploy/db/backup-schedule) records its runs and reads their ages through these functions of
-- the Backups module, never with SQL of its own on the module's table: `backup_runs` has one owner, which creates it,
-- writes it (here) and reads it (BackupMonitor).
CREATE FUNCTION backup_run_recorded(run_kind text, succeeded boolean) RETURNS void LANGUAGE sql AS $$
    INSERT INTO backup_runs (kind, finished_at, ok) VALUES (run_kind, now(), succeeded);
    -- Runs are kept for 400 days: a year on the dashboard, and the table stays a few thousand rows.
    DELETE FROM backup_runs WHERE finished_at < now() - interval '400 days';
$$;

-- Seconds since the last successful run of `run_kind` (`full`, `diff`; NULL: of either kind); NULL when there is none.
CREATE FUNCTION backup_age_seconds(run_kind text) RETURNS bigint LANGUAGE sql STABLE AS $$
    SELECT extract(epoch FROM now() - max(finished_at))::bigint FROM backup_runs
    WHERE ok AND (run_kind IS NULL OR kind = run_kind)
$$;
