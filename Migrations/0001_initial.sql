-- Pier's first schema: everything the fetchers store. Keys are chosen so that a re-scrape upserts or
-- replaces rows instead of duplicating them.

CREATE EXTENSION IF NOT EXISTS postgis;

-- Every fetch attempt, good or bad, for /health and for drift detection.
CREATE TABLE fetch_runs (
    id          bigserial PRIMARY KEY,
    source      text        NOT NULL,                 -- 'ships', 'lakes', 'weather-observations', …
    started_at  timestamptz NOT NULL,
    finished_at timestamptz,
    outcome     text        NOT NULL CHECK (outcome IN ('running', 'ok', 'failed', 'suspect')),
    item_count  integer,
    error       text
);
CREATE INDEX fetch_runs_source_started_idx ON fetch_runs (source, started_at DESC);

-- ZSG: which ship runs which course on a Zurich service date. A day is replaced as a whole, in one
-- transaction, after a good scrape of that day.
CREATE TABLE ship_days (
    service_date date        PRIMARY KEY,
    scraped_at   timestamptz NOT NULL,
    route_count  integer     NOT NULL CHECK (route_count >= 0)
);
CREATE TABLE ship_deployments (
    service_date  date    NOT NULL REFERENCES ship_days (service_date) ON DELETE CASCADE,
    position      integer NOT NULL,                   -- order on the page
    ship_name     text    NOT NULL,
    course_number text    NOT NULL,
    PRIMARY KEY (service_date, position)
);

-- MeteoNews: the latest good set of lake readings, replaced as a whole.
CREATE TABLE lake_readings (
    lake_name     text PRIMARY KEY,
    position      integer          NOT NULL,          -- order in the table
    temperature_c double precision,                   -- NULL when the table showed none
    water_level   text,
    scraped_at    timestamptz      NOT NULL
);

-- FMI stations with their position; the GiST index serves nearest-station (KNN) queries.
CREATE TABLE weather_stations (
    fmisid     integer PRIMARY KEY,
    name       text                   NOT NULL,
    location   geography(Point, 4326) NOT NULL,
    updated_at timestamptz            NOT NULL
);
CREATE INDEX weather_stations_location_idx ON weather_stations USING gist (location);

-- Observations per station and time; a bounded history is kept (older rows are deleted by the fetcher).
CREATE TABLE weather_observations (
    fmisid         integer     NOT NULL REFERENCES weather_stations (fmisid) ON DELETE CASCADE,
    observed_at    timestamptz NOT NULL,
    temperature    double precision,
    wind_speed     double precision,
    wind_direction double precision,
    humidity       double precision,
    pressure       double precision,
    weather_code   double precision,
    cloud_cover    double precision,
    PRIMARY KEY (fmisid, observed_at)
);
CREATE INDEX weather_observations_observed_idx ON weather_observations (observed_at);

-- Point forecasts by ~1 km grid cell (cell indices = coordinates rounded to the grid).
CREATE TABLE weather_forecast_cells (
    cell_lat   integer     NOT NULL,
    cell_lon   integer     NOT NULL,
    fetched_at timestamptz NOT NULL,
    PRIMARY KEY (cell_lat, cell_lon)
);
CREATE TABLE weather_forecast_points (
    cell_lat         integer     NOT NULL,
    cell_lon         integer     NOT NULL,
    valid_at         timestamptz NOT NULL,
    temperature      double precision,
    wind_speed       double precision,
    wind_direction   double precision,
    humidity         double precision,
    pressure         double precision,
    precipitation_1h double precision,
    weather_symbol   double precision,
    PRIMARY KEY (cell_lat, cell_lon, valid_at),
    FOREIGN KEY (cell_lat, cell_lon) REFERENCES weather_forecast_cells (cell_lat, cell_lon) ON DELETE CASCADE
);
