-- Sydney departures from TfNSW's departure_mon, one row per upstream request (the stop, or the stop and a time
-- asked), shared by every replica and kept across restarts. `departures` is Pier's reading of the answer
-- (JSON array, every mode; departures that have left are dropped when served); `unknown` marks a stop id
-- TfNSW does not know, remembered so it is not asked again per request. Rows older than a day are pruned.
CREATE TABLE nsw_departures (
    request_key text        PRIMARY KEY,
    departures  text        NOT NULL,
    unknown     boolean     NOT NULL DEFAULT false,
    fetched_at  timestamptz NOT NULL
);
CREATE INDEX nsw_departures_fetched_idx ON nsw_departures (fetched_at);
