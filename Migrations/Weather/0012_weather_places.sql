-- Place names asked of /v1/weather (`place=`), as FMI resolved them: `query` is the name as asked, normalised
-- (trimmed, one space, lower case); `name`, `latitude`, `longitude` FMI's answer, all NULL when FMI knows no such
-- place. Every replica reads them; rows are kept a day (a resolution costs an FMI call, so a day holds at most what
-- the FMI budget allows) and deleted when new ones are written.
CREATE TABLE weather_places (
    query       text             PRIMARY KEY,
    name        text,
    latitude    double precision,
    longitude   double precision,
    resolved_at timestamptz      NOT NULL
);
