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
-- with its raise.
CREATE OR REPLACE FUNCTION subscription_channels_list_changed() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  me xid := pg_current_xact_id()::xid;
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT s.account_id FROM new_rows c JOIN subscriptions s ON s.id = c.subscription_id WHERE s.xmin <> me));
  ELSIF TG_OP = 'UPDATE' THEN
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT s.account_id FROM new_rows c JOIN subscriptions s ON s.id = c.subscription_id
      WHERE s.xmin <> me AND NOT EXISTS (SELECT 1 FROM old_rows o WHERE o.subscription_id = c.subscription_id AND o.position = c.position
        AND o.type = c.type AND o.settings IS NOT DISTINCT FROM c.settings)));
  ELSE
    -- Rows removed with their subscription find none here; the subscription's own trigger counts.
    PERFORM bump_subscription_list_versions(ARRAY(
      SELECT s.account_id FROM old_rows c JOIN subscriptions s ON s.id = c.subscription_id WHERE s.xmin <> me));
  END IF;
  RETURN NULL;
END $$;
