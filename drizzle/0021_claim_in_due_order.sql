DROP INDEX "deliveries_due_idx";--> statement-breakpoint
CREATE INDEX "deliveries_pending_due_idx" ON "deliveries" USING btree ("due_at") WHERE status = 'PENDING';--> statement-breakpoint
-- The worker's claim (src/delivery/outbox-store.ts claimDueDeliveries, which adds the send context):
-- the first due pending deliveries in due order, locked with SKIP LOCKED, with the rest of any
-- batch they belong to, leased. Its plan must not depend on the table's statistics: a queue's
-- pending rows come and go far faster than ANALYZE runs (and a new table, or autovacuum off, has
-- none). Taken while the queue was short, they make the planner expect a few pending rows however
-- long the backlog, and the claim then
--   - collected every due delivery with a bitmap scan and sorted them all to take the first few
--     (instead of reading the index above in order and stopping at the limit), and
--   - found the rows to lease through any pending-only path (hashing every pending row, or walking
--     the whole pending index), because a filter on status = 'PENDING' looked nearly free,
-- on every claim. Over a backlog of 100,000 that was ~5.5 ms and ~1,400 buffers per claim of ~30
-- rows, most of PostgreSQL's time per delivery (docs/PERFORMANCE.md, "Delivery", seventh round).
-- So: the pick is planned with sorting off (a function's own setting holds while its statement is
-- planned), which leaves the ordered index scan as the plan; and nothing else here filters on
-- status where an index could take it. The rest of a batch is found by its key alone, locked, and
-- only then checked (behind OFFSET 0, which keeps the checks out of the scan); every row leased is
-- then locked by this statement, so the update finds them by id and checks nothing again.
-- ROWS: what a claim takes (at most the worker's free slots), for the caller's joins.
CREATE FUNCTION claim_due_deliveries(max_rows int, due timestamptz, lease_ms int, batch_lock_class int)
  RETURNS TABLE (id text, notification_id text, "position" int, channel_type text, settings jsonb, attempts int,
    lease_until timestamptz, batch_key text)
  LANGUAGE plpgsql
  ROWS 16
  SET enable_sort = off
AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
  WITH picked AS (
    SELECT d.id, d.batch_key FROM deliveries d
    WHERE d.status = 'PENDING' AND d.due_at <= due AND (d.lease_until IS NULL OR d.lease_until < now())
    ORDER BY d.due_at
    LIMIT max_rows
    FOR UPDATE OF d SKIP LOCKED
  ),
  -- The batches this claim takes: a key is locked only once picked (a lock in picked's filter would
  -- be tried on every row the scan reads, before the limit), in a class of its own (coordination.ts).
  -- Another worker's claim of the same batch finds the lock taken and leaves the batch to this one.
  batch_keys AS MATERIALIZED (
    SELECT k.batch_key FROM (SELECT DISTINCT p.batch_key FROM picked p WHERE p.batch_key IS NOT NULL) k
    WHERE pg_try_advisory_xact_lock(batch_lock_class, hashtext(k.batch_key))
  ),
  -- The rest of the picked batches, key by key through the partial index on batch_key, each row
  -- locked (waiting for a writer of it, then read as it is now) and checked after its lock.
  batch_rest AS (
    SELECT r.id FROM batch_keys k
    CROSS JOIN LATERAL (
      SELECT d.id, d.status, d.lease_until FROM deliveries d
      WHERE d.batch_key = k.batch_key
      OFFSET 0
      FOR UPDATE OF d
    ) r
    WHERE r.status = 'PENDING' AND (r.lease_until IS NULL OR r.lease_until < now())
      AND r.id NOT IN (SELECT p.id FROM picked p)
  )
  UPDATE deliveries d SET lease_until = now() + lease_ms * interval '1 millisecond', updated_at = now()
  WHERE d.id IN (
    SELECT p.id FROM picked p WHERE p.batch_key IS NULL OR p.batch_key IN (SELECT k.batch_key FROM batch_keys k)
    UNION ALL SELECT r.id FROM batch_rest r
  )
  RETURNING d.id, d.notification_id, d."position", d.channel_type, d.settings, d.attempts, d.lease_until, d.batch_key;
END $$;
--> statement-breakpoint
-- The listing counter's trigger on deliveries (0018): an update raises the counter only for rows
-- whose shown columns changed (not a claim's lease, not a retry's due time). That test was a
-- NOT EXISTS over old_rows, run as a nested loop (transition tables have no index), and plpgsql
-- keeps the plan it made for the first, small statement of a session: an outcome batch of n rows
-- compared n × n/2 pairs (a batch of ~400 took ~45 ms). EXCEPT ALL compares them by hashing or
-- sorting, in time proportional to the batch. Same rows: EXCEPT treats two nulls as equal, as
-- IS NOT DISTINCT FROM did for settings (the other columns are never null).
CREATE OR REPLACE FUNCTION deliveries_list_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT n.account_id FROM notifications n JOIN new_rows d ON d.notification_id = n.id WHERE n.subscription_id IS NOT NULL));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT n.account_id FROM notifications n JOIN (
        SELECT id, notification_id, status, position, channel_type, settings FROM new_rows
        EXCEPT ALL
        SELECT id, notification_id, status, position, channel_type, settings FROM old_rows
      ) d ON d.notification_id = n.id
      WHERE n.subscription_id IS NOT NULL));
  ELSE
    -- Rows removed with their notification find none here; the notification's own trigger counts.
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT n.account_id FROM notifications n JOIN old_rows d ON d.notification_id = n.id WHERE n.subscription_id IS NOT NULL));
  END IF;
  RETURN NULL;
END $$;
