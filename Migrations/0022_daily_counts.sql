-- One table for the counts per key and UTC day (Limits' DailyCounter), instead of one per feature: App Attest's
-- registrations per network (scope `app-attest-registrations`, moved here from app_attest_registrations, nothing lost)
-- and the push registrations of clients without a device's proof (scope `push-registrations`). One row per scope, key
-- and day, moved by one statement that never passes the limit, whatever the number of replicas; rows older than
-- yesterday are dropped by the next count taken in their scope.
CREATE TABLE daily_counts (
    scope text    NOT NULL,
    key   text    NOT NULL,
    day   date    NOT NULL,
    count integer NOT NULL CHECK (count > 0),
    PRIMARY KEY (scope, key, day)
);

INSERT INTO daily_counts (scope, key, day, count)
SELECT 'app-attest-registrations', network, day, registrations FROM app_attest_registrations;

DROP TABLE app_attest_registrations;
