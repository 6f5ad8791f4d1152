-- FMI's forecasts per cell live in the shared answer store like every other on-demand answer (kind `fmi-forecast`,
-- key `<cell_lat>,<cell_lon>`, located at the cell's centre for the search for a neighbouring cell, the body
-- `{"hours": [[epoch s, temperature, wind speed, wind direction, humidity, pressure, precipitation, WeatherSymbol3,
-- gust, feels-like], …]}`, kept 48 hours after it was fetched). The forecasts held so far move there, then the two
-- tables go.
INSERT INTO upstream_answers (kind, key, status, body, fetched_at, expires_at, near_params, latitude, longitude)
SELECT 'fmi-forecast', c.cell_lat || ',' || c.cell_lon, 200,
       json_build_object('hours', COALESCE(
           json_agg(json_build_array(extract(epoch FROM p.valid_at), p.temperature, p.wind_speed, p.wind_direction, p.humidity,
                                     p.pressure, p.precipitation_1h, p.weather_symbol, p.wind_gust, p.feels_like)
                    ORDER BY p.valid_at) FILTER (WHERE p.valid_at IS NOT NULL),
           '[]'::json))::text,
       c.fetched_at, c.fetched_at, '', c.cell_lat * 0.01, c.cell_lon * 0.02
FROM weather_forecast_cells c LEFT JOIN weather_forecast_points p USING (cell_lat, cell_lon)
GROUP BY c.cell_lat, c.cell_lon, c.fetched_at
ON CONFLICT (kind, key) DO NOTHING;

DROP TABLE weather_forecast_points;
DROP TABLE weather_forecast_cells;
