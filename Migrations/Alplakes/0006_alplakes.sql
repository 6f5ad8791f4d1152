-- The last good Alplakes (Eawag) answers per lake: the temperature profile nearest the fetch and the
-- surface series around it, as the upstream sent them once checked. A failed fetch leaves the row alone.
CREATE TABLE alplakes_lakes (
    lake        text        PRIMARY KEY,
    profile     text        NOT NULL,
    point       text        NOT NULL,
    fetched_at  timestamptz NOT NULL
);
