-- Place names asked of /v1/weather (`place=`) live in the shared answer store like every other on-demand answer
-- (kind `fmi-place`, key the normalised name; a found place's body `{"name", "latitude", "longitude"}`, status 200; a
-- name FMI knows no place by, status 404 with an empty body; fresh for a day). The rows kept so far move there, then
-- the table goes.
INSERT INTO upstream_answers (kind, key, status, body, fetched_at, expires_at)
SELECT 'fmi-place', query,
       CASE WHEN name IS NULL THEN 404 ELSE 200 END,
       CASE WHEN name IS NULL THEN '' ELSE json_build_object('name', name, 'latitude', latitude, 'longitude', longitude)::text END,
       resolved_at, resolved_at + interval '1 day'
FROM weather_places
ON CONFLICT (kind, key) DO NOTHING;

DROP TABLE weather_places;
