-- MET Norway's stand-in forecasts live in the shared answer store like every other on-demand answer (kind `metno`,
-- key `<cell_lat>,<cell_lon>`, the body `{"last_modified": …, "steps": [[epoch, t, ws, wd, h, p, precipitation,
-- period hours, "symbol"], …]}`, expiring at MET's Expires). The copies held so far move there (a replica asks MET
-- again only after Expires, conditionally), then the table goes.
INSERT INTO upstream_answers (kind, key, status, body, fetched_at, expires_at)
SELECT 'metno', cell_lat || ',' || cell_lon, 200, json_build_object('last_modified', last_modified, 'steps', hours)::text, fetched_at, expires
FROM metno_forecasts
ON CONFLICT (kind, key) DO NOTHING;

DROP TABLE metno_forecasts;
