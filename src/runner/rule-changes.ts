import type { Database, Unlisten } from '../db/client.js';
import { SUBSCRIPTION_CHANGED, WATCHLIST_CHANGED } from '../db/coordination.js';

export interface RuleChangeHandlers {
  /** A subscription was created, edited or deleted. */
  subscription(id: string): void;
  /** A watchlist's events changed: its subscriptions may cover other markets now. */
  watchlist(id: string): void;
}

/** Follows the change feed of the edits that change which rules the engine runs. */
export async function followRuleChanges(database: Database, on: RuleChangeHandlers): Promise<Unlisten[]> {
  return [await database.listen(SUBSCRIPTION_CHANGED, on.subscription), await database.listen(WATCHLIST_CHANGED, on.watchlist)];
}
