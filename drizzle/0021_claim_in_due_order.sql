DROP INDEX "deliveries_due_idx";--> statement-breakpoint
CREATE INDEX "deliveries_pending_due_idx" ON "deliveries" USING btree ("due_at") WHERE status = 'PENDING';--> statement-breakpoint
-- The worker's claim (src/delivery/outbox-store.ts claimDueDeliveries) starts with this pick: the
-- first due pending deliveries in due order, locked with SKIP LOCKED. Its plan must not depend on
-- the table's statistics: a queue's pending rows come and go far faster than ANALYZE runs (and a
-- new table, or autovacuum off, has none). Taken while the queue was short, they make the planner
-- expect a few pending rows however long the backlog, and it then collected every due delivery
-- with a bitmap scan and sorted them all to take the first few, on every claim: over a backlog of
-- 100,000, ~5.5 ms and ~1,400 buffers per claim of ~30 rows, most of PostgreSQL's time per
-- delivery (docs/PERFORMANCE.md, "Delivery", seventh round). A function's own settings hold while
-- its statement is planned: with sorting off, the ordered index scan that stops at the limit is
-- the plan. The claim statement around it must not filter on status where an index could take it
-- either (a filter on status = 'PENDING' looks free to such statistics): see claimDueDeliveries.
-- ROWS: what a pick takes (at most the worker's free slots), for the caller's joins.
CREATE FUNCTION pick_due_deliveries(max_rows int, due timestamptz)
  RETURNS TABLE (id text, batch_key text)
  LANGUAGE plpgsql
  ROWS 16
  SET enable_sort = off
AS $$
#variable_conflict use_column
BEGIN
  RETURN QUERY
    SELECT d.id, d.batch_key FROM deliveries d
    WHERE d.status = 'PENDING' AND d.due_at <= due AND (d.lease_until IS NULL OR d.lease_until < now())
    ORDER BY d.due_at
    LIMIT max_rows
    FOR UPDATE OF d SKIP LOCKED;
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
