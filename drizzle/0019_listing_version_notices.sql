-- The counter raise also sends a notice per account (channel subscription_list_changed, payload
-- the account id), but only when the writing session itself listens on that channel. That is
-- PGlite's one session, where the API's listing cache listens: PGlite hands a committed notice to
-- its in-process listeners before the committing call returns, so the cache there trusts the
-- notices instead of reading the counter per request (src/services/subscriptions/listing-cache.ts).
-- On PostgreSQL the writers are pool connections that listen on nothing (listens have a connection
-- of their own), so no notice is queued and commits do not take the notify queue's lock; the cache
-- there keeps reading the counter. The channel name is SUBSCRIPTION_LIST_CHANGED in
-- src/db/coordination.ts.
CREATE OR REPLACE FUNCTION bump_subscription_list_versions(ids text[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF ids IS NULL OR cardinality(ids) = 0 THEN RETURN; END IF;
  INSERT INTO subscription_list_versions AS v (account_id, version)
    SELECT DISTINCT a, 1 FROM unnest(ids) AS a WHERE a IS NOT NULL ORDER BY a
  ON CONFLICT (account_id) DO UPDATE SET version = v.version + 1;
  IF 'subscription_list_changed' = ANY (ARRAY(SELECT pg_listening_channels())) THEN
    PERFORM pg_notify('subscription_list_changed', a) FROM (SELECT DISTINCT a FROM unnest(ids) AS a WHERE a IS NOT NULL) AS changed;
  END IF;
END $$;
