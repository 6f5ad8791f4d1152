-- The deployment's backups as its `backup` service records them (deploy/db/backup-schedule): one row per run, so that
-- /health and the metrics say how old the last full and differential backups are. No path, no secret.
CREATE TABLE backup_runs (
    kind        text NOT NULL CHECK (kind IN ('full', 'diff', 'incr')),
    finished_at timestamptz NOT NULL,
    ok          boolean NOT NULL
);
CREATE INDEX backup_runs_kind ON backup_runs (kind, finished_at);
