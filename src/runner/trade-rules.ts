import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import { DEFAULT_TRIGGER_INTERVAL, LARGE_TRADE_TYPE, TRIGGER_INTERVAL_MS, VOLUME_SPIKE_TYPE, type TradeSide } from '../domain/enums.js';
import { LargeTradeRules } from '../engine/large-trades.js';
import type { Firing } from '../engine/rules.js';
import type { Trade, TradeRule } from '../engine/trade-rules.js';
import { VolumeSpikeRules } from '../engine/volume-spikes.js';
import type { LastTradeMessage } from '../venue/clob/messages.js';
import type { TradeRulePair } from './expand.js';
import type { FiringWriter } from './firing-writer.js';
import { sourceEventOf } from './prices-from-stream.js';
import { RuleSet } from './rule-set.js';

/** The evaluator's rule for one pair (its id set by the caller); undefined when its stored parameters are unusable. */
function compileTradeRule(pair: TradeRulePair): TradeRule | undefined {
  const base = {
    ruleId: -1,
    subscriptionId: pair.subscriptionId,
    marketId: pair.marketId,
    token: pair.token,
    oneTime: pair.triggerType === 'One Time',
    intervalMs: TRIGGER_INTERVAL_MS[pair.triggerInterval ?? DEFAULT_TRIGGER_INTERVAL],
    expiresAtMs: pair.expiresAtMs,
    lastFiredAtMs: pair.lastFiredAtMs,
  };
  if (pair.type === LARGE_TRADE_TYPE) {
    const minUsd = pair.params.min_usd;
    if (typeof minUsd !== 'number' || !(minUsd > 0)) return undefined;
    const side: TradeSide | null = pair.params.side ?? null;
    return { ...base, type: LARGE_TRADE_TYPE, minUsd, side };
  }
  const multiple = pair.params.multiple;
  if (typeof multiple !== 'number' || !Number.isFinite(multiple)) return undefined;
  return { ...base, type: VOLUME_SPIKE_TYPE, multiple };
}

export interface TradeRunnerOptions {
  database: Database;
  now: () => number;
  writer: FiringWriter;
}

/**
 * The trade side of the engine: `Large Trade` and `Volume Spike` rules loaded from the database,
 * trades off the feed evaluated against them, firings handed to the same writer as price firings
 * (so One Time, Recurring pauses, snooze, quiet hours and digests apply alike).
 */
export class TradeRunner {
  private readonly rules = new RuleSet();
  readonly large = new LargeTradeRules();
  readonly volume = new VolumeSpikeRules();

  constructor(private readonly options: TradeRunnerOptions) {}

  /** Whether a trade of this token means anything: the hot path asks before building anything. */
  watches(token: string): boolean {
    return this.rules.follows(token);
  }

  tokens(): string[] {
    return this.rules.tokens();
  }

  get size(): number {
    return this.large.size + this.volume.size;
  }

  /**
   * Replaces the trade rules of these subscriptions (every one when undefined) with `pairs`, their
   * expansion (expand.ts); answers whether the set of followed tokens changed.
   */
  load(subscriptionIds: readonly string[] | undefined, pairs: readonly TradeRulePair[]): boolean {
    const { now, writer } = this.options;
    const dropped = new Set<string>();
    let tokensChanged = false;
    // Volume Spike rules that fired on a spike still going on, by (subscription, market): a reload
    // (a watchlist or catalog change) keeps them waiting for its end.
    const spent = new Set<string>();
    // Every subscription only at start, when none is loaded yet.
    for (const id of subscriptionIds ?? []) {
      for (const [ruleId, key] of this.rules.rulesOf(id)) if (this.volume.isSpent(ruleId)) spent.add(`${id}:${key.marketId}`);
      for (const ruleId of this.rules.removeSubscription(id, dropped)) {
        this.large.remove(ruleId);
        this.volume.remove(ruleId);
      }
    }
    const nowMs = now();
    for (const pair of pairs) {
      const fired = writer.lastFiredAt(pair.subscriptionId, pair.marketId);
      if (fired !== undefined && fired > (pair.updatedAtMs ?? -Infinity) && fired > (pair.lastFiredAtMs ?? -Infinity)) pair.lastFiredAtMs = fired;
      const rule = compileTradeRule(pair);
      if (!rule) continue;
      const { ruleId, firstOfToken } = this.rules.add({ subscriptionId: pair.subscriptionId, marketId: pair.marketId, token: pair.token });
      if (firstOfToken && !dropped.delete(pair.token)) tokensChanged = true;
      rule.ruleId = ruleId;
      if (rule.type === LARGE_TRADE_TYPE) this.large.add(rule, nowMs);
      else {
        this.volume.add(rule, pair.volume24hr, nowMs);
        // A user change since the last firing (restart, update) clears the wait, as it clears the pause.
        if (pair.lastFiredAtMs !== null && spent.has(`${pair.subscriptionId}:${pair.marketId}`)) this.volume.markSpent(ruleId);
      }
    }
    this.volume.prune();
    return tokensChanged || dropped.size > 0;
  }

  /** Takes the catalog's latest `volume24hr` of the markets Volume Spike rules watch (catalog baseline). */
  async refreshBaselines(): Promise<void> {
    const markets = this.volume.markets();
    if (markets.size === 0) return;
    const rows = await this.options.database.rows<{ id: string; volume_24hr: number | string }>(sql`
      select id, volume_24hr from catalog_markets where id in (${sql.join([...markets.keys()].map((id) => sql`${id}`), sql`, `)})`);
    for (const r of rows) {
      const token = markets.get(r.id);
      if (token !== undefined) this.volume.setCatalogVolume(token, Number(r.volume_24hr));
    }
  }

  /** A trade off the feed: evaluated when a rule watches its token, its firings handed to the writer. */
  onTrade(msg: LastTradeMessage, receivedAtMs: number): void {
    if (msg.size === null || !this.rules.follows(msg.assetId)) return;
    const nowMs = this.options.now();
    const trade: Trade = { price: msg.price, size: msg.size, side: msg.side, transactionHash: msg.transactionHash };
    const large = this.large.trade(msg.assetId, trade, nowMs);
    const volume = this.volume.trade(msg.assetId, trade, nowMs);
    if (large.length === 0 && volume.length === 0) return;
    const firings: Firing[] = [...large, ...volume];
    this.options.writer.add(firings, {
      receivedAtMs,
      sourceEvent: sourceEventOf(msg),
      ...(msg.timestampMs ? { sourceTimestampMs: msg.timestampMs } : {}),
    });
  }
}
