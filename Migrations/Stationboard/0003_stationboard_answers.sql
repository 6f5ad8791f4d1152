-- Stationboard answers from transport.opendata.ch, one row per distinct request (Pier's cache key), kept as
-- the upstream sent them (checked JSON text): ship names are added when an answer is served, so a new ships
-- scrape changes them without asking the upstream again. Shared by every replica; old rows are pruned.
CREATE TABLE stationboard_answers (
    cache_key    text        PRIMARY KEY,
    station_id   text        NOT NULL,
    service_date date        NOT NULL,
    body         text        NOT NULL,
    fetched_at   timestamptz NOT NULL
);
CREATE INDEX stationboard_answers_fetched_idx ON stationboard_answers (fetched_at);
