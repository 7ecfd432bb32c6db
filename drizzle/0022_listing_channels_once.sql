-- The channels' listing trigger (0018) raises nothing for a subscription whose row this transaction
-- wrote itself: that write fired the subscriptions' own trigger, which raised the same account's
-- counter (and queued its notice) in this transaction already. A listing's cache compares the
-- committed counter with the one it was built at, so a second raise in the same transaction shows
-- nothing more. A create writes the subscription and its channels in one statement, and an update
-- that replaces the channels writes the subscription's row in the same transaction: both paid the
-- second raise (the channels' trigger 0.07-0.09 ms of a PGlite create statement, ~0.03 without it:
-- docs/PERFORMANCE.md "Sequential creates, eighth round"). Channels changed without their
-- subscription's row (hand-written SQL, a row written in an earlier transaction) still raise it.
-- "This transaction wrote the row": its xmin is the transaction's own id. A row written inside a
-- savepoint carries the subtransaction's id instead, which never equals it: such a channel raises
-- the counter as before (the savepoint could have been rolled back with the subscription's raise).
-- The subscriptions' triggers are statement-level AFTER triggers, never deferred, and fire for
-- every insert and update of the table, so a top-level row version of this transaction always came
-- with its raise. (xmin is 32 bits: a transaction that changes channels without writing their
-- subscription's row, some 4 billion transactions after that row's write, may by chance carry the
-- same id and skip its raise; the listing then shows the change at the account's next raise.)
CREATE OR REPLACE FUNCTION subscription_channels_list_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  me xid := pg_current_xact_id()::xid;
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT s.account_id FROM new_rows c JOIN subscriptions s ON s.id = c.subscription_id WHERE s.xmin <> me));
  ELSIF TG_OP = 'UPDATE' THEN
    -- The listed fields that changed, by set difference both ways: an old row the update changed
    -- (or moved to another subscription) raises the account it left, a new one the account it went
    -- to. EXCEPT ALL hashes or sorts once; the NOT EXISTS over old_rows that 0018 had was a nested
    -- loop, quadratic in the batch (the delivery worker's health write updates many channels in one
    -- statement: 4,000 rows 1.1 s on PGlite against 48 ms this way, docs/PERFORMANCE.md).
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT s.account_id FROM (
        (SELECT subscription_id, position, type, settings FROM new_rows
          EXCEPT ALL SELECT subscription_id, position, type, settings FROM old_rows)
        UNION ALL
        (SELECT subscription_id, position, type, settings FROM old_rows
          EXCEPT ALL SELECT subscription_id, position, type, settings FROM new_rows)
      ) c JOIN subscriptions s ON s.id = c.subscription_id WHERE s.xmin <> me));
  ELSE
    -- Rows removed with their subscription find none here; the subscription's own trigger counts.
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT s.account_id FROM old_rows c JOIN subscriptions s ON s.id = c.subscription_id WHERE s.xmin <> me));
  END IF;
  RETURN NULL;
END $$;
