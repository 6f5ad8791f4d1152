-- App Attest: new devices registered per network (an IPv4 /24, an IPv6 /48) per UTC day, so that minting keys —
-- each a device with its own daily share of every upstream — is bounded per network (PIER_APP_ATTEST_REGISTRATIONS_PER_DAY).
-- One row per network and day, moved by one statement that never passes the limit, whatever the number of replicas;
-- rows older than yesterday are dropped by the next registration.
CREATE TABLE app_attest_registrations (
    network       text NOT NULL,
    day           date NOT NULL,
    registrations integer NOT NULL CHECK (registrations > 0),
    PRIMARY KEY (network, day)
);
