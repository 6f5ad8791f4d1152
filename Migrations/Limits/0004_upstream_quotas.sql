-- Requests made with an upstream key per day: a key's daily or monthly quota belongs to the key, not to one
-- process, so every replica counts here and a restart does not reset the count. One row per upstream and day
-- (the day in the zone the upstream counts in); rows older than a few weeks are pruned by the counting code.
CREATE TABLE upstream_quota (
    upstream text    NOT NULL,
    day      date    NOT NULL,
    used     integer NOT NULL CHECK (used >= 0),
    PRIMARY KEY (upstream, day)
);
