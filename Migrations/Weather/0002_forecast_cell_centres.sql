-- Neighbouring-cell forecasts: each stored cell's centre as a point, for a PostGIS KNN search ("the nearest
-- cell with a forecast within 10 km"), and an index on the fetch time for freshness and pruning.
-- The centre follows GridCell: latitude = cell_lat × 0.01°, longitude = cell_lon × 0.02°.
ALTER TABLE weather_forecast_cells
    ADD COLUMN centre geography(Point, 4326)
    GENERATED ALWAYS AS (ST_SetSRID(ST_MakePoint(cell_lon * 0.02::float8, cell_lat * 0.01::float8), 4326)::geography) STORED;
CREATE INDEX weather_forecast_cells_centre_idx ON weather_forecast_cells USING gist (centre);
CREATE INDEX weather_forecast_cells_fetched_idx ON weather_forecast_cells (fetched_at);
