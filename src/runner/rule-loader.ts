import type { RuleIndex } from '../engine/index.js';
import type { RearmSide } from '../engine/rules.js';
import { compileRule, type RulePair } from './expand.js';
import type { FiringWriter } from './firing-writer.js';
import type { PriceReferences } from './references.js';
import type { RuleSet } from './rule-set.js';
import type { TokenPriceStore } from './token-prices.js';
import type { TokenRecords } from './token-records.js';

export interface RuleLoaderOptions {
  now: () => number;
  index: RuleIndex;
  rules: RuleSet;
  references: PriceReferences;
  writer: FiringWriter;
  prices: TokenPriceStore;
  /** Kept while price rules follow their token (this loader says which). */
  records: TokenRecords;
  /** The set of followed tokens changed (the listener reads them when it needs them). */
  onTokensChanged: () => void;
  /** Rules started following these tokens after the first load. */
  onFollowing: (tokens: string[]) => void;
}

/** Loads rules from the database into the index: all of them at start, then changed subscriptions. */
export class RuleLoader {
  private loaded = false;

  constructor(private readonly options: RuleLoaderOptions) {}

  /** Replaces the rules of these subscriptions (every subscription when undefined) with `pairs`, their expansion (expand.ts). */
  load(subscriptionIds: readonly string[] | undefined, pairs: readonly RulePair[]): void {
    const { now, index, rules, references, writer, prices, records } = this.options;
    let tokensChanged = false;
    // Tokens followed before this reload; a reload that keeps following one keeps its reference.
    const dropped = new Set<string>();
    const followed: string[] = [];
    // Re-arm bands of the loaded rules, by (subscription, market): in memory they are fresher than
    // the saved ones (written up to a price save later), and a reload (a preference, a watchlist or
    // catalog change) must not turn a quiet rule loud again.
    const bands = new Map<string, RearmSide | null>();
    // Likewise the window-move rules that fired and whose move still holds.
    const holding = new Set<string>();
    if (subscriptionIds) {
      for (const id of subscriptionIds) {
        for (const [ruleId, key] of rules.rulesOf(id)) {
          bands.set(`${id}:${key.marketId}`, index.rearmAfter(ruleId));
          if (index.moveHolding(ruleId)) holding.add(`${id}:${key.marketId}`);
        }
        for (const ruleId of rules.removeSubscription(id, dropped)) index.remove(ruleId);
      }
    }
    const nowMs = now();
    for (const pair of pairs) {
      const fired = writer.lastFiredAt(pair.subscriptionId, pair.marketId);
      if (fired !== undefined && fired > (pair.updatedAtMs ?? -Infinity) && fired > (pair.lastFiredAtMs ?? -Infinity)) {
        pair.lastFiredAtMs = fired;
      }
      const { ruleId, firstOfToken } = rules.add({ subscriptionId: pair.subscriptionId, marketId: pair.marketId, token: pair.token });
      const rule = compileRule(pair, ruleId);
      // A user change since the last firing (restart, update) clears the band, as it clears the pause.
      const band = bands.get(`${pair.subscriptionId}:${pair.marketId}`);
      if (band !== undefined) rule.rearmAfter = pair.lastFiredAtMs !== null ? band : null;
      if (pair.lastFiredAtMs !== null && holding.has(`${pair.subscriptionId}:${pair.marketId}`)) rule.moveHolding = true;
      if (firstOfToken && !dropped.delete(pair.token)) {
        tokensChanged = true;
        records.follow(pair.token);
        // The price remembered from before nobody followed the token is stale: forget it before
        // the rule is added, so neither a crossing nor a level rule is judged against it. (At
        // start the saved prices stay: they are the ones the rules saw before the engine stopped.)
        if (this.loaded) {
          references.await(pair.token);
          followed.push(pair.token);
        }
      }
      writer.add(index.add(rule, nowMs), { receivedAtMs: nowMs });
    }
    for (const token of dropped) {
      tokensChanged = true;
      references.forget(token);
      prices.remove(token);
      records.unfollow(token);
    }
    if (dropped.size > 0) writer.savePricesSoon();
    if (!subscriptionIds) index.settleAll();
    this.loaded = true;
    if (tokensChanged) this.options.onTokensChanged();
    if (followed.length > 0) this.options.onFollowing(followed);
  }
}
