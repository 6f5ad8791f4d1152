-- One answer store: the three tables on-demand sources kept by hand (OpenWeather's lake weather, the stationboards,
-- TfNSW's departures) move into `upstream_answers`, where every other on-demand answer already lives, under the
-- kinds their routes' caches are named by. Keys and bodies are unchanged, so every stored answer is served after
-- the upgrade without an upstream call. Each source still decides freshness from `fetched_at` by its own rule;
-- `expires_at` is when that rule's default ends (lake weather 30 min, a board 60 s — today's, the shortest —, a stop
-- 30 s, an unknown stop an hour), and each kind's retention counts from it (operations.md).
INSERT INTO upstream_answers (kind, key, status, body, fetched_at, expires_at)
SELECT 'lake-weather', cell_key, 200, body, fetched_at, fetched_at + interval '30 minutes' FROM lake_weather_forecasts
ON CONFLICT (kind, key) DO NOTHING;

INSERT INTO upstream_answers (kind, key, status, body, fetched_at, expires_at)
SELECT 'stationboard', cache_key, 200, body, fetched_at, fetched_at + interval '60 seconds' FROM stationboard_answers
ON CONFLICT (kind, key) DO NOTHING;

-- A stop TfNSW does not know was `unknown`; it is a remembered 404, as a Wikipedia title that does not exist.
INSERT INTO upstream_answers (kind, key, status, body, fetched_at, expires_at)
SELECT 'nsw', request_key, CASE WHEN unknown THEN 404 ELSE 200 END, departures, fetched_at,
    fetched_at + CASE WHEN unknown THEN interval '1 hour' ELSE interval '30 seconds' END
FROM nsw_departures
ON CONFLICT (kind, key) DO NOTHING;

DROP TABLE lake_weather_forecasts;
DROP TABLE stationboard_answers;
DROP TABLE nsw_departures;
