-- An event's title or a market's question, shown beside the subscriptions on it, now raises one
-- catalog-wide counter row (account_id '*') instead of the row of every account subscribed to it.
-- The catalog sync renames inside a long transaction of many statements: raising accounts' rows
-- there held their locks until its commit, so the engine's firing writes and the worker's outcomes
-- for those accounts waited on the sync, and, taking the same rows in another order, could deadlock
-- with it. Only the catalog's triggers raise '*', and only the sync writes the catalog. A listing's
-- version is its account's counter and this one (src/services/subscriptions/listing-cache.ts);
-- on PGlite the notice's payload '*' raises every account's generation.
CREATE OR REPLACE FUNCTION catalog_events_list_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF EXISTS (SELECT 1 FROM subscriptions s JOIN new_rows n ON n.id = s.event_id) THEN
      PERFORM bump_subscription_list_versions(ARRAY['*']);
    END IF;
  ELSIF TG_OP = 'UPDATE' THEN
    IF EXISTS (SELECT 1 FROM subscriptions s JOIN new_rows n ON n.id = s.event_id
               WHERE NOT EXISTS (SELECT 1 FROM old_rows o WHERE o.id = n.id AND o.title IS NOT DISTINCT FROM n.title)) THEN
      PERFORM bump_subscription_list_versions(ARRAY['*']);
    END IF;
  ELSE
    IF EXISTS (SELECT 1 FROM subscriptions s JOIN old_rows o ON o.id = s.event_id) THEN
      PERFORM bump_subscription_list_versions(ARRAY['*']);
    END IF;
  END IF;
  RETURN NULL;
END $$;--> statement-breakpoint
CREATE OR REPLACE FUNCTION catalog_markets_list_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    IF EXISTS (SELECT 1 FROM subscriptions s JOIN new_rows n ON n.id = s.market_id) THEN
      PERFORM bump_subscription_list_versions(ARRAY['*']);
    END IF;
  ELSIF TG_OP = 'UPDATE' THEN
    IF EXISTS (SELECT 1 FROM subscriptions s JOIN new_rows n ON n.id = s.market_id
               WHERE NOT EXISTS (SELECT 1 FROM old_rows o WHERE o.id = n.id AND o.question IS NOT DISTINCT FROM n.question)) THEN
      PERFORM bump_subscription_list_versions(ARRAY['*']);
    END IF;
  ELSE
    IF EXISTS (SELECT 1 FROM subscriptions s JOIN old_rows o ON o.id = s.market_id) THEN
      PERFORM bump_subscription_list_versions(ARRAY['*']);
    END IF;
  END IF;
  RETURN NULL;
END $$;
