-- Upstream answers asked on demand and kept for everyone (Geoapify places and geocoding, Wikipedia summaries
-- and searches): one row per request Pier made, shared by every replica and kept across restarts. `kind` names
-- the route's cache; `status` is what Pier answers with (200, or a remembered 404); `body` the checked answer as
-- Pier serves it. Answers reused by nearby requests (places) also keep their point and the rest of their
-- parameters, so a request within ~100 m finds them. Rows are deleted a while after `expires_at` (each kind's
-- retention, docs/operations.md): until then an expired answer is what Pier serves when the upstream fails.
CREATE TABLE upstream_answers (
    kind        text             NOT NULL,
    key         text             NOT NULL,
    status      smallint         NOT NULL,
    body        text             NOT NULL,
    fetched_at  timestamptz      NOT NULL,
    expires_at  timestamptz      NOT NULL,
    near_params text,
    latitude    double precision,
    longitude   double precision,
    PRIMARY KEY (kind, key)
);
CREATE INDEX upstream_answers_near_idx ON upstream_answers (kind, near_params, latitude) WHERE near_params IS NOT NULL;
CREATE INDEX upstream_answers_expires_idx ON upstream_answers (kind, expires_at);
