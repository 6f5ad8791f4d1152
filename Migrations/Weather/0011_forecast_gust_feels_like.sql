-- The hourly forecast's gust (FMI's HourlyMaximumGust, m/s) and feels-like temperature (FeelsLike, °C), for
-- /v1/weather's hourly_forecast. Older rows keep NULL (served as null, feels-like computed from the other values).
ALTER TABLE weather_forecast_points ADD COLUMN wind_gust double precision, ADD COLUMN feels_like double precision;
