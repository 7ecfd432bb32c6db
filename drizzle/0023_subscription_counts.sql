-- How many subscriptions each account holds, in its listing counter's row: the create's
-- MAX_SUBSCRIPTIONS check (src/services/subscriptions/create.ts) reads it instead of counting the
-- account's subscriptions, a scan that grew with them (~0.25 ms of a PGlite create at 1,000, most
-- of the growth the bench saw over 1,000 creates: docs/PERFORMANCE.md, "Sequential creates, eighth
-- round"). The subscriptions' listing trigger raises that row in every insert and delete already;
-- the count changes in the same upsert, so keeping it costs no statement of its own.
-- No writes to subscriptions while the counts are taken and the trigger replaced (a process still
-- running the old code would insert uncounted rows). Taken before the ALTER TABLE locks
-- subscription_list_versions: a writer locks subscriptions and then, in its trigger, the counters
-- table, so the other order could deadlock with a process still running the old code.
LOCK TABLE subscriptions IN SHARE ROW EXCLUSIVE MODE;--> statement-breakpoint
ALTER TABLE "subscription_list_versions" ADD COLUMN "subscriptions" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
INSERT INTO subscription_list_versions AS v (account_id, version, subscriptions)
  SELECT account_id, 1, count(*) FROM subscriptions GROUP BY account_id ORDER BY account_id
ON CONFLICT (account_id) DO UPDATE SET version = v.version + 1, subscriptions = excluded.subscriptions;--> statement-breakpoint
-- `counted`: each id is one row added (1) or removed (-1) for that account; 0 (every caller but
-- the subscriptions' trigger) raises the counters only. Ids may repeat: one raise per account.
DROP FUNCTION bump_subscription_list_versions(text[]);--> statement-breakpoint
CREATE FUNCTION bump_subscription_list_versions(ids text[], counted int DEFAULT 0) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF ids IS NULL OR cardinality(ids) = 0 THEN RETURN; END IF;
  INSERT INTO subscription_list_versions AS v (account_id, version, subscriptions)
    SELECT a, 1, counted * count(*) FROM unnest(ids) AS a WHERE a IS NOT NULL GROUP BY a ORDER BY a
  ON CONFLICT (account_id) DO UPDATE SET version = v.version + 1, subscriptions = v.subscriptions + excluded.subscriptions;
  IF 'subscription_list_changed' = ANY (ARRAY(SELECT pg_listening_channels())) THEN
    PERFORM pg_notify('subscription_list_changed', a) FROM (SELECT DISTINCT a FROM unnest(ids) AS a WHERE a IS NOT NULL) AS changed;
  END IF;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION subscriptions_list_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM bump_subscription_list_versions(ARRAY(SELECT account_id FROM new_rows), 1);
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM bump_subscription_list_versions(ARRAY(SELECT account_id FROM new_rows UNION SELECT account_id FROM old_rows));
    -- Subscriptions moved to another account (no code of the service does; hand-written SQL
    -- could): the counts follow them.
    IF EXISTS (SELECT account_id FROM new_rows EXCEPT ALL SELECT account_id FROM old_rows) THEN
      PERFORM bump_subscription_list_versions(ARRAY(SELECT account_id FROM new_rows EXCEPT ALL SELECT account_id FROM old_rows), 1);
      PERFORM bump_subscription_list_versions(ARRAY(SELECT account_id FROM old_rows EXCEPT ALL SELECT account_id FROM new_rows), -1);
    END IF;
  ELSE
    PERFORM bump_subscription_list_versions(ARRAY(SELECT account_id FROM old_rows), -1);
  END IF;
  RETURN NULL;
END $$;
