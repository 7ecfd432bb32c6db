-- Two costs of the listing counter (0017/0018/0021/0023) on the delivery hot path, measured at
-- 1,000 firings/s on PostgreSQL (docs/PERFORMANCE.md "Delivery", "Firing write on PostgreSQL"):
--
-- 1. The deliveries' triggers found each row's account by joining the transition table with
--    notifications. plpgsql plans that query once per session, at the row count of its first call,
--    and keeps the plan: a first batch of a few hundred rows left a hash join that read ALL of
--    notifications on every later call (10 ms for a batch of 10 at 40,000 notifications, growing
--    with the table, once per firing write and once per outcome batch). Each distinct notification
--    is now looked up by its key in a scalar subquery, which has no other plan than the index probe,
--    whatever the row counts were when the plan was made.
-- 2. A firing write raised its account's counter three times (the subscriptions' update, the
--    notifications' insert, the deliveries' insert), each a new version of the same row. A listing's
--    cache compares the committed counter with the one it was built at, so a second raise in one
--    transaction shows nothing more (the same reasoning as 0022): a raise of a counter row this
--    transaction already wrote at its top level (xmin is the transaction's own id) leaves the row
--    as it is. A raise inside a savepoint writes the subtransaction's id, never equal to it, so a
--    later raise still writes (the savepoint may be rolled back). A change of the kept count
--    (`counted` not 0) always writes.
CREATE OR REPLACE FUNCTION bump_subscription_list_versions(ids text[], counted int DEFAULT 0) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF ids IS NULL OR cardinality(ids) = 0 THEN RETURN; END IF;
  INSERT INTO subscription_list_versions AS v (account_id, version, subscriptions)
    SELECT a, 1, counted * count(*) FROM unnest(ids) AS a WHERE a IS NOT NULL GROUP BY a ORDER BY a
  ON CONFLICT (account_id) DO UPDATE SET version = v.version + 1, subscriptions = v.subscriptions + excluded.subscriptions
    WHERE excluded.subscriptions <> 0 OR v.xmin <> pg_current_xact_id()::xid;
  IF 'subscription_list_changed' = ANY (ARRAY(SELECT pg_listening_channels())) THEN
    PERFORM pg_notify('subscription_list_changed', a) FROM (SELECT DISTINCT a FROM unnest(ids) AS a WHERE a IS NOT NULL) AS changed;
  END IF;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION deliveries_list_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT (SELECT n.account_id FROM notifications n WHERE n.id = d.notification_id AND n.subscription_id IS NOT NULL)
      FROM (SELECT DISTINCT notification_id FROM new_rows) d));
  ELSIF TG_OP = 'UPDATE' THEN
    -- A claim's lease or a retry's due time changes nothing shown: only rows whose shown fields
    -- changed (EXCEPT ALL hashes or sorts once, 0021) are looked up.
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT (SELECT n.account_id FROM notifications n WHERE n.id = d.notification_id AND n.subscription_id IS NOT NULL)
      FROM (SELECT DISTINCT notification_id FROM (
        SELECT id, notification_id, status, position, channel_type, settings FROM new_rows
        EXCEPT ALL
        SELECT id, notification_id, status, position, channel_type, settings FROM old_rows
      ) changed) d));
  ELSE
    -- Rows removed with their notification find none here; the notification's own trigger counts.
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT (SELECT n.account_id FROM notifications n WHERE n.id = d.notification_id AND n.subscription_id IS NOT NULL)
      FROM (SELECT DISTINCT notification_id FROM old_rows) d));
  END IF;
  RETURN NULL;
END $$;
