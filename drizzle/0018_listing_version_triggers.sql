-- Every change a subscription listing shows raises its account's subscription_list_versions row in
-- the changing transaction, whichever code (or hand-written SQL) makes it: the API's listing cache
-- trusts the counter (src/services/subscriptions/listing-cache.ts, docs/decisions.md).
-- Statement-level triggers read the statement's rows once (a batch of firings or delivery outcomes
-- is one call, not one per row); the rows of the accounts are locked in account order, so two
-- batches naming the same accounts in different orders wait for each other instead of deadlocking.
CREATE FUNCTION bump_subscription_list_versions(ids text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF ids IS NULL OR cardinality(ids) = 0 THEN RETURN; END IF;
  INSERT INTO subscription_list_versions AS v (account_id, version)
    SELECT DISTINCT a, 1 FROM unnest(ids) AS a WHERE a IS NOT NULL ORDER BY a
  ON CONFLICT (account_id) DO UPDATE SET version = v.version + 1;
END $$;--> statement-breakpoint
-- Subscriptions: any insert, update or delete (the listing shows nearly every column).
CREATE FUNCTION subscriptions_list_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM bump_subscription_list_versions(ARRAY(SELECT account_id FROM new_rows));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM bump_subscription_list_versions(ARRAY(SELECT account_id FROM new_rows UNION SELECT account_id FROM old_rows));
  ELSE
    PERFORM bump_subscription_list_versions(ARRAY(SELECT account_id FROM old_rows));
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER subscriptions_list_insert AFTER INSERT ON subscriptions REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION subscriptions_list_changed();--> statement-breakpoint
CREATE TRIGGER subscriptions_list_update AFTER UPDATE ON subscriptions REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION subscriptions_list_changed();--> statement-breakpoint
CREATE TRIGGER subscriptions_list_delete AFTER DELETE ON subscriptions REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION subscriptions_list_changed();--> statement-breakpoint
-- Channels: added, removed, or their type, settings or position changed (not health columns).
CREATE FUNCTION subscription_channels_list_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT s.account_id FROM new_rows c JOIN subscriptions s ON s.id = c.subscription_id));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT s.account_id FROM new_rows c JOIN subscriptions s ON s.id = c.subscription_id
      WHERE NOT EXISTS (SELECT 1 FROM old_rows o WHERE o.subscription_id = c.subscription_id AND o.position = c.position
        AND o.type = c.type AND o.settings IS NOT DISTINCT FROM c.settings)));
  ELSE
    -- Rows removed with their subscription find none here; the subscription's own trigger counts.
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT s.account_id FROM old_rows c JOIN subscriptions s ON s.id = c.subscription_id));
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER subscription_channels_list_insert AFTER INSERT ON subscription_channels REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION subscription_channels_list_changed();--> statement-breakpoint
CREATE TRIGGER subscription_channels_list_update AFTER UPDATE ON subscription_channels REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION subscription_channels_list_changed();--> statement-breakpoint
CREATE TRIGGER subscription_channels_list_delete AFTER DELETE ON subscription_channels REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION subscription_channels_list_changed();--> statement-breakpoint
-- Watchlists: a rename shows as watchlistName; a new or deleted one decides whether its own
-- listing answers or is "not found".
CREATE FUNCTION watchlists_list_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM bump_subscription_list_versions(ARRAY(SELECT account_id FROM new_rows));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT n.account_id FROM new_rows n WHERE NOT EXISTS (
        SELECT 1 FROM old_rows o WHERE o.id = n.id AND o.name = n.name AND o.account_id = n.account_id)));
  ELSE
    PERFORM bump_subscription_list_versions(ARRAY(SELECT account_id FROM old_rows));
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER watchlists_list_insert AFTER INSERT ON watchlists REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION watchlists_list_changed();--> statement-breakpoint
CREATE TRIGGER watchlists_list_update AFTER UPDATE ON watchlists REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION watchlists_list_changed();--> statement-breakpoint
CREATE TRIGGER watchlists_list_delete AFTER DELETE ON watchlists REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION watchlists_list_changed();--> statement-breakpoint
-- Catalog: an event's title or a market's question shown beside the subscriptions on it (the sync's
-- upserts of unchanged rows find nothing to count).
CREATE FUNCTION catalog_events_list_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM bump_subscription_list_versions(ARRAY(SELECT s.account_id FROM subscriptions s JOIN new_rows n ON n.id = s.event_id));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT s.account_id FROM subscriptions s JOIN new_rows n ON n.id = s.event_id
      WHERE NOT EXISTS (SELECT 1 FROM old_rows o WHERE o.id = n.id AND o.title IS NOT DISTINCT FROM n.title)));
  ELSE
    PERFORM bump_subscription_list_versions(ARRAY(SELECT s.account_id FROM subscriptions s JOIN old_rows o ON o.id = s.event_id));
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER catalog_events_list_insert AFTER INSERT ON catalog_events REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION catalog_events_list_changed();--> statement-breakpoint
CREATE TRIGGER catalog_events_list_update AFTER UPDATE ON catalog_events REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION catalog_events_list_changed();--> statement-breakpoint
CREATE TRIGGER catalog_events_list_delete AFTER DELETE ON catalog_events REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION catalog_events_list_changed();--> statement-breakpoint
CREATE FUNCTION catalog_markets_list_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM bump_subscription_list_versions(ARRAY(SELECT s.account_id FROM subscriptions s JOIN new_rows n ON n.id = s.market_id));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT s.account_id FROM subscriptions s JOIN new_rows n ON n.id = s.market_id
      WHERE NOT EXISTS (SELECT 1 FROM old_rows o WHERE o.id = n.id AND o.question IS NOT DISTINCT FROM n.question)));
  ELSE
    PERFORM bump_subscription_list_versions(ARRAY(SELECT s.account_id FROM subscriptions s JOIN old_rows o ON o.id = s.market_id));
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER catalog_markets_list_insert AFTER INSERT ON catalog_markets REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION catalog_markets_list_changed();--> statement-breakpoint
CREATE TRIGGER catalog_markets_list_update AFTER UPDATE ON catalog_markets REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION catalog_markets_list_changed();--> statement-breakpoint
CREATE TRIGGER catalog_markets_list_delete AFTER DELETE ON catalog_markets REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION catalog_markets_list_changed();--> statement-breakpoint
-- Notifications: a subscription's latest one gives its channels' status, so a new one (a firing)
-- or a removed one (retention) changes it; so would a notification moved to another subscription.
CREATE FUNCTION notifications_list_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM bump_subscription_list_versions(ARRAY(SELECT account_id FROM new_rows WHERE subscription_id IS NOT NULL));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT n.account_id FROM new_rows n WHERE NOT EXISTS (
        SELECT 1 FROM old_rows o WHERE o.id = n.id AND o.subscription_id IS NOT DISTINCT FROM n.subscription_id
          AND o.account_id = n.account_id)));
  ELSE
    PERFORM bump_subscription_list_versions(ARRAY(SELECT account_id FROM old_rows WHERE subscription_id IS NOT NULL));
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER notifications_list_insert AFTER INSERT ON notifications REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION notifications_list_changed();--> statement-breakpoint
CREATE TRIGGER notifications_list_update AFTER UPDATE ON notifications REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION notifications_list_changed();--> statement-breakpoint
CREATE TRIGGER notifications_list_delete AFTER DELETE ON notifications REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION notifications_list_changed();--> statement-breakpoint
-- Deliveries: a channel's status is its delivery's status (a claim's lease or a retry's due time
-- changes nothing shown and counts nothing).
CREATE FUNCTION deliveries_list_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT n.account_id FROM notifications n JOIN new_rows d ON d.notification_id = n.id WHERE n.subscription_id IS NOT NULL));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT n.account_id FROM notifications n JOIN new_rows d ON d.notification_id = n.id
      WHERE n.subscription_id IS NOT NULL AND NOT EXISTS (
        SELECT 1 FROM old_rows o WHERE o.id = d.id AND o.notification_id = d.notification_id AND o.status = d.status
          AND o.position = d.position AND o.channel_type = d.channel_type AND o.settings IS NOT DISTINCT FROM d.settings)));
  ELSE
    -- Rows removed with their notification find none here; the notification's own trigger counts.
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT n.account_id FROM notifications n JOIN old_rows d ON d.notification_id = n.id WHERE n.subscription_id IS NOT NULL));
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE TRIGGER deliveries_list_insert AFTER INSERT ON deliveries REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION deliveries_list_changed();--> statement-breakpoint
CREATE TRIGGER deliveries_list_update AFTER UPDATE ON deliveries REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION deliveries_list_changed();--> statement-breakpoint
CREATE TRIGGER deliveries_list_delete AFTER DELETE ON deliveries REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION deliveries_list_changed();
