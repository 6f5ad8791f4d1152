-- Each push's payload is stored once, named by its digest, and the outbox rows point at it. A warning's fan-out has
-- three payloads (one per language) for up to 100,000 devices: stored in every row they made the enqueue write ~40 MB
-- and every claim and every result rewrite each ~500-byte row with its payload (the outbox's updates were half of the
-- delivery's database work in the push benchmark). No foreign key: it would need an index on push_outbox.payload_id,
-- one more index written for every push; the prune instead deletes a payload only when nothing names it and it was
-- last used longer ago than the outbox keeps pushes (an enqueue that reuses it moves used_at, which the delete
-- re-checks under the row's lock).
CREATE TABLE push_payloads (
    id      bigserial PRIMARY KEY,
    -- sha256 of the body: a btree cannot hold a 4 KB text as a unique key
    digest  bytea NOT NULL UNIQUE,
    body    text NOT NULL,
    used_at timestamptz NOT NULL DEFAULT now()
);

ALTER TABLE push_outbox ADD COLUMN payload_id bigint;
INSERT INTO push_payloads (digest, body)
    SELECT DISTINCT sha256(convert_to(payload, 'UTF8')), payload FROM push_outbox;
UPDATE push_outbox AS o SET payload_id = p.id FROM push_payloads AS p WHERE p.digest = sha256(convert_to(o.payload, 'UTF8'));
ALTER TABLE push_outbox ALTER COLUMN payload_id SET NOT NULL;
ALTER TABLE push_outbox DROP COLUMN payload;
