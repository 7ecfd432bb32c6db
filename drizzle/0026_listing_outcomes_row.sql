-- The delivery worker's outcome batches and the engine's firing writes stop queueing on one row.
-- Both raised the account's subscription_list_versions row (0018/0024) and held its lock through
-- their commit's WAL flush: at 1,000 firings/s for one account, 19-22 s of a 30 s run was spent
-- waiting on that row (docs/PERFORMANCE.md "Delivery", "Counter split by writer").
--
-- A change of the deliveries' shown fields (an outcome, a redelivery, a read) now raises a
-- second row of the account, keyed by the account id and ' deliveries' (an account id is a uuid, or
-- '*' for the catalog-wide row: never with a space). Every other write keeps raising the account's
-- own row, which also keeps the MAX_SUBSCRIPTIONS count (0023). A listing's version is both rows
-- and the catalog-wide one (src/services/subscriptions/listing-cache.ts `counterVersion`). The
-- notice sent on a raise still names the account, whichever row was raised, so PGlite's followed
-- generations go on raising the account's.
--
-- 0024's "one raise a transaction" holds per row: a transaction that raises both rows writes each
-- once. Lock order: a firing write takes only the account's row (it inserts deliveries, never
-- updates them); marking read and redelivering take only the deliveries row (a notification's
-- read_at raises nothing, 0018); the one writer of both is an outcome batch that warns or disables
-- a channel, deliveries row first. So no two of the service's transactions take them in opposite
-- order; hand-written SQL that does (account's row, then deliveries) can deadlock with such a
-- batch, and PostgreSQL then cancels one after deadlock_timeout.
--
-- Upgrade: existing rows are the accounts' rows and keep their meaning; an account's deliveries row
-- is made by its first raise (version 1). Cached listings kept under the former version form
-- (account:catalog) never match the new one (account:deliveries:catalog) and are built again once.
-- A process still on the old code during a rolling upgrade reads only the account's row: its kept
-- listings show a delivery's change at the account's next other raise, or once it is replaced.
DROP FUNCTION bump_subscription_list_versions(text[], int);--> statement-breakpoint
CREATE FUNCTION bump_subscription_list_versions(ids text[], counted int DEFAULT 0, part text DEFAULT '') RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF ids IS NULL OR cardinality(ids) = 0 THEN RETURN; END IF;
  INSERT INTO subscription_list_versions AS v (account_id, version, subscriptions)
    SELECT a || part, 1, counted * count(*) FROM unnest(ids) AS a WHERE a IS NOT NULL GROUP BY a ORDER BY a
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
    -- changed (EXCEPT ALL hashes or sorts once, 0021) are looked up. They raise the account's
    -- deliveries row, apart from the row a firing write raises.
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT (SELECT n.account_id FROM notifications n WHERE n.id = d.notification_id AND n.subscription_id IS NOT NULL)
      FROM (SELECT DISTINCT notification_id FROM (
        SELECT id, notification_id, status, position, channel_type, settings FROM new_rows
        EXCEPT ALL
        SELECT id, notification_id, status, position, channel_type, settings FROM old_rows
      ) changed) d), 0, ' deliveries');
  ELSE
    -- Rows removed with their notification find none here; the notification's own trigger counts.
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT (SELECT n.account_id FROM notifications n WHERE n.id = d.notification_id AND n.subscription_id IS NOT NULL)
      FROM (SELECT DISTINCT notification_id FROM old_rows) d));
  END IF;
  RETURN NULL;
END $$;
