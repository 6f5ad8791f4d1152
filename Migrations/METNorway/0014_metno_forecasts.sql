-- MET Norway's forecasts, for cells FMI could not answer (Sources/Weather/METNorwayFallback.swift): one row per
-- ~1 km cell (the indices of weather_forecast_cells), with MET's Expires and Last-Modified, so that no replica asks
-- MET before Expires and every replica asks again conditionally after it. `hours`: [[epoch s, temperature,
-- wind speed, wind direction, humidity, pressure, precipitation, WeatherSymbol3], …] (null where MET gave none).
-- Rows are dropped a day after they expired, and the oldest beyond PIER_METNO_MAX_ROWS.
CREATE TABLE metno_forecasts (
    cell_lat      integer NOT NULL,
    cell_lon      integer NOT NULL,
    fetched_at    timestamptz NOT NULL,
    expires       timestamptz NOT NULL,
    last_modified text,
    hours         jsonb NOT NULL,
    PRIMARY KEY (cell_lat, cell_lon)
);

CREATE INDEX metno_forecasts_expires_idx ON metno_forecasts (expires);
