-- FMI's CAP warnings (Sources/Warnings; Tests/Fixtures/fmi-warnings/README.md): one row per document the
-- warnings feed listed at its last reading. A document is fetched once (it never changes after it is issued);
-- a row is staged not in force while the documents of a publication arrive, and one transaction then drops what
-- the feed no longer lists and decides what is in force: not a Cancel, and referenced by no listed Update or
-- Cancel. Expiry is not decided here: every lookup compares `expires` with the clock.
CREATE TABLE weather_warnings (
    url         text PRIMARY KEY,
    identifier  text NOT NULL,
    msg_type    text NOT NULL CHECK (msg_type IN ('Alert', 'Update', 'Cancel')),
    refs        text[] NOT NULL DEFAULT '{}',
    in_force    boolean NOT NULL DEFAULT false,
    -- 1 minor (green) … 4 extreme (red)
    severity    smallint NOT NULL CHECK (severity BETWEEN 1 AND 4),
    onset       timestamptz NOT NULL,
    expires     timestamptz NOT NULL,
    -- the warning as /v1/warnings writes it, per language (another language's texts where the document lacks one)
    entry_en    text NOT NULL,
    entry_fi    text NOT NULL,
    entry_sv    text NOT NULL,
    -- every polygon of every area, lon/lat (CAP writes lat,lon), made valid; NULL: the document had no usable ring
    area        geometry(MultiPolygon, 4326),
    fetched_at  timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX weather_warnings_area ON weather_warnings USING gist (area) WHERE in_force;
