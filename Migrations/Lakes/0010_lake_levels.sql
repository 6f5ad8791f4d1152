-- Each lake's level history, one row per lake and day (Europe/Zurich): the day's latest reading MeteoNews showed
-- when Pier scraped it (`scraped`), or a row carried over from the Next Wave app's own table with
-- `pier import water-levels` (`imported`), which never replaces a scraped one. `lake` is MeteoNews' name. Rows older
-- than the retention (`PIER_LAKE_LEVELS_RETENTION_D`, two years) are deleted when a scrape is stored.
CREATE TABLE lake_levels (
    lake     text             NOT NULL,
    day      date             NOT NULL,
    level_m  double precision NOT NULL CHECK (level_m > 0 AND level_m < 5000),
    read_at  timestamptz,
    source   text             NOT NULL CHECK (source IN ('scraped', 'imported')),
    PRIMARY KEY (lake, day)
);
