-- The outbox's claim reads the due pending pushes in (due_at, id) order and the expired ones by expires_at: with a
-- warning's fan-out pending (100,000 rows) both were a sequential scan and a sort for every batch of 500 (80 ms at
-- 40,000 rows). Partial indexes over the pending rows only, so delivered history costs them nothing.
DROP INDEX push_outbox_due;
CREATE INDEX push_outbox_due ON push_outbox (due_at, id) WHERE state = 'pending';
CREATE INDEX push_outbox_expiring ON push_outbox (expires_at) WHERE state = 'pending';
