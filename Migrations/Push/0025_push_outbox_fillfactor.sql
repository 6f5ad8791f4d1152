-- Room on each page of the outbox for a claim's new row version: the claim rewrites only the lease and the attempt
-- count (no indexed column), so with room on the page PostgreSQL keeps the new version beside the old one (a HOT
-- update) and writes no index entry for it.
ALTER TABLE push_outbox SET (fillfactor = 50);
