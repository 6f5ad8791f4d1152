-- OpenWeather 5-day forecasts per grid cell (Pier's cache key: the cell's centre), kept as the upstream sent
-- them once checked (text), so every replica and a restart can serve them without asking again. Rows not
-- refreshed for two days are pruned when a new one is stored.
CREATE TABLE lake_weather_forecasts (
    cell_key   text        PRIMARY KEY,
    body       text        NOT NULL,
    fetched_at timestamptz NOT NULL
);
CREATE INDEX lake_weather_forecasts_fetched_idx ON lake_weather_forecasts (fetched_at);
