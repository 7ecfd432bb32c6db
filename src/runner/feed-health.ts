import { sql } from 'drizzle-orm';
import type { Database } from '../db/client.js';
import type { ChannelSettings } from '../db/schema/subscriptions.js';
import { NOTIFICATION_TYPE, isPriceRuleType, type ChannelType, type PriceRuleType } from '../domain/enums.js';
import { writeNotificationsOnce, type NotificationToWrite } from '../delivery/enqueue.js';
import { formatSpan } from '../delivery/endpoint-health.js';
import { readSyncStatus } from '../catalog/sync-status.js';
import type { Logger } from '../logger.js';
import type { ConnectionFeedState } from '../venue/clob/market-socket.js';
import { CROSSING, CROSSING_DOWN, CROSSING_STEP, CROSSING_UP, thresholdFraction } from '../engine/rules.js';
import { expandPriceRules, type RulePair } from './expand.js';

// Feed health (docs/delivery.md "Feed health"): a timer compares each market connection's last
// frame with the clock, so the per-message path only stores a timestamp. While a connection that
// carries followed tokens is silent past FEED_STALE_AFTER_MS, accounts with active price rules on
// its tokens get one notice; when every connection speaks again, fresh books are taken and each
// of those accounts gets one recovery notice saying whether a crossing rule's threshold was
// crossed between the last price evaluated before the gap and the first fresh one.


export interface FeedHealthOptions {
  database: Database;
  logger: Logger;
  staleAfterMs: number;
  /** The catalog sync failing this long is an outage too (SYNC_FAILING_AFTER_MS). */
  syncFailingAfterMs: number;
  /** Default: a quarter of staleAfterMs, at most 5 s. */
  checkIntervalMs?: number;
  /** Each market connection's state (MarketStream.feedState). */
  connections: () => ConnectionFeedState[];
  /** The price the rules last evaluated for a token. */
  lastPrice: (token: string) => number | undefined;
  /** Takes fresh books of these tokens, lets the engine evaluate them, and answers their prices. */
  refresh: (tokens: string[]) => Promise<Map<string, number>>;
  now?: () => number;
}

export interface FeedHealthMonitor {
  /** One check now (the timer calls it; tests may too). */
  check(): Promise<void>;
  /** Whether an outage is open, and since when. */
  readonly outageSinceMs: number | undefined;
  stop(): Promise<void>;
}

interface Outage {
  sinceMs: number;
  /** Token → last evaluated price before the gap (undefined when none was known). */
  before: Map<string, number | undefined>;
  /** Accounts told about this outage → the rules that made them affected. */
  accounts: Map<string, RulePair[]>;
}

interface ChatChannel {
  accountId: string;
  type: ChannelType;
  settings: ChannelSettings | null;
}

/** Whether a move from `before` to `after` crosses what the rule watches (level rules are not crossing rules). */
export function crossedBetween(type: PriceRuleType, thresholdPercent: number, before: number, after: number): boolean {
  const t = thresholdFraction(thresholdPercent);
  const up = before < t && after >= t;
  const down = before > t && after <= t;
  switch (type) {
    case CROSSING:
      return up || down;
    case CROSSING_UP:
      return up;
    case CROSSING_DOWN:
      return down;
    case CROSSING_STEP:
      return t > 0 && Math.floor(before / t + 1e-9) !== Math.floor(after / t + 1e-9);
    default:
      return false;
  }
}

const subscriptionIdsOf = (pairs: RulePair[]) => [...new Set(pairs.map((p) => p.subscriptionId))];

export function startFeedHealth(options: FeedHealthOptions): FeedHealthMonitor {
  const { database, logger, staleAfterMs } = options;
  const now = options.now ?? Date.now;
  let outage: Outage | undefined;
  let syncOutage: { sinceMs: number; accounts: Map<string, string[]> } | undefined;
  let running: Promise<void> = Promise.resolve();
  let stopped = false;

  /** Enabled price rules on these tokens, by account. */
  async function rulesByAccount(tokens: ReadonlySet<string>): Promise<Map<string, RulePair[]>> {
    const pairs = (await expandPriceRules(database)).filter((p) => tokens.has(p.token));
    const byAccount = new Map<string, RulePair[]>();
    if (pairs.length === 0) return byAccount;
    const ids = [...new Set(pairs.map((p) => p.subscriptionId))];
    const owners = await database.rows<{ id: string; accountId: string }>(
      sql`select id, account_id as "accountId" from subscriptions where id in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})`,
    );
    const ownerOf = new Map(owners.map((o) => [o.id, o.accountId]));
    for (const p of pairs) {
      const account = ownerOf.get(p.subscriptionId);
      if (!account) continue;
      const list = byAccount.get(account) ?? [];
      list.push(p);
      byAccount.set(account, list);
    }
    return byAccount;
  }

  /** The chat channels (Telegram, Discord, not disabled) of these rules, once per destination. */
  async function chatChannels(ids: string[]): Promise<ChatChannel[]> {
    if (ids.length === 0) return [];
    const rows = await database.rows<ChatChannel & Record<string, unknown>>(
      sql`select s.account_id as "accountId", c.type, c.settings from subscription_channels c
          join subscriptions s on s.id = c.subscription_id
          where c.subscription_id in (${sql.join(ids.map((id) => sql`${id}`), sql`, `)})
            and c.type in ('Telegram', 'Discord') and c.disabled_at is null
          order by c.subscription_id, c.position`,
    );
    const seen = new Set<string>();
    return rows.filter((r) => {
      const key = `${r.type}:${JSON.stringify(r.settings ?? {})}`;
      return !seen.has(key) && (seen.add(key), true);
    });
  }

  async function write(accountId: string, subscriptionIds: string[], event: string, sinceMs: number, payload: Record<string, unknown>) {
    const chats = await chatChannels(subscriptionIds);
    const source = String(payload.source);
    const notice: NotificationToWrite = {
      accountId,
      subscriptionId: null,
      type: NOTIFICATION_TYPE.feedHealth,
      payload: { type: NOTIFICATION_TYPE.feedHealth, event, userId: accountId, createdAt: new Date(now()).toISOString(), ...payload },
      // One per account, outage and event, whichever engine process writes it.
      dedupeKey: `feed-health:${source}:${accountId}:${sinceMs}:${event}`,
      channels: [{ type: 'In App' }, ...chats.map((c) => ({ type: c.type, settings: c.settings }))],
    };
    await database.db.transaction((tx) => writeNotificationsOnce(tx, [notice]));
  }

  async function tellDelayed(current: Outage, accounts: Map<string, RulePair[]>): Promise<void> {
    const since = new Date(current.sinceMs).toISOString();
    for (const [accountId, pairs] of accounts) {
      current.accounts.set(accountId, pairs);
      await write(accountId, subscriptionIdsOf(pairs), 'feed_delayed', current.sinceMs, {
        source: 'market_feed',
        since,
        subscriptionIds: subscriptionIdsOf(pairs),
        message: `Prices may be delayed since ${since}: the venue's price feed has been silent or disconnected. Your price alerts are checked again as soon as it is back.`,
      });
    }
    if (accounts.size > 0) logger.warn({ since, accounts: accounts.size }, 'market feed stale; accounts told prices may be delayed');
  }

  async function tellRecovered(current: Outage, fresh: Map<string, number>): Promise<void> {
    const recoveredAtMs = now();
    const gapMs = recoveredAtMs - current.sinceMs;
    for (const [accountId, pairs] of current.accounts) {
      const crossedRules = pairs.flatMap((p) => {
        const before = current.before.get(p.token);
        const after = fresh.get(p.token);
        // A window move is no level a gap can have crossed: only the spec's price rules are told.
        if (!isPriceRuleType(p.type) || before === undefined || after === undefined || !crossedBetween(p.type, p.thresholdPercent, before, after)) return [];
        return [{ subscriptionId: p.subscriptionId, marketId: p.marketId, type: p.type, thresholdPercent: p.thresholdPercent, priceBefore: before, priceAfter: after }];
      });
      const crossed = crossedRules.length > 0;
      await write(accountId, subscriptionIdsOf(pairs), 'feed_recovered', current.sinceMs, {
        source: 'market_feed',
        since: new Date(current.sinceMs).toISOString(),
        recoveredAt: new Date(recoveredAtMs).toISOString(),
        gapSeconds: Math.round(gapMs / 1000),
        crossed,
        crossedRules,
        message:
          `Prices are flowing again after a gap of ${formatSpan(gapMs)}. ` +
          (crossed
            ? `During the gap ${crossedRules.length === 1 ? 'a price crossed the threshold of one of your rules' : `prices crossed the thresholds of ${crossedRules.length} of your rules`}; the alert fires with the fresh price.`
            : 'No price crossed a threshold of your rules during the gap.'),
      });
    }
    logger.info({ gapMs, accounts: current.accounts.size }, 'market feed recovered');
  }

  /** Every enabled rule depends on the catalog: new markets to follow, closings, status notices. */
  async function activeRulesByAccount(): Promise<Map<string, string[]>> {
    const rows = await database.rows<{ id: string; accountId: string }>(
      sql`select id, account_id as "accountId" from subscriptions where enabled order by id`,
    );
    const byAccount = new Map<string, string[]>();
    for (const r of rows) byAccount.set(r.accountId, [...(byAccount.get(r.accountId) ?? []), r.id]);
    return byAccount;
  }

  async function checkSync(): Promise<void> {
    const status = await readSyncStatus(database);
    const at = now();
    if (status.failingSinceMs !== null && at - status.failingSinceMs > options.syncFailingAfterMs) {
      if (syncOutage?.sinceMs === status.failingSinceMs) return;
      const current = { sinceMs: status.failingSinceMs, accounts: await activeRulesByAccount() };
      syncOutage = current;
      const since = new Date(current.sinceMs).toISOString();
      for (const [accountId, ids] of current.accounts) {
        await write(accountId, ids, 'feed_delayed', current.sinceMs, {
          source: 'catalog_sync',
          since,
          subscriptionIds: ids,
          message: `Market and event updates may be delayed since ${since}: the venue's catalog cannot be read (${status.lastError ?? 'unknown error'}). New markets and closings are picked up as soon as it is back.`,
        });
      }
      logger.warn({ since, accounts: current.accounts.size, lastError: status.lastError }, 'catalog sync failing; accounts told');
      return;
    }
    if (status.failingSinceMs !== null || !syncOutage) return;
    const current = syncOutage;
    syncOutage = undefined;
    const recoveredAtMs = now();
    const gapMs = recoveredAtMs - current.sinceMs;
    for (const [accountId, ids] of current.accounts) {
      await write(accountId, ids, 'feed_recovered', current.sinceMs, {
        source: 'catalog_sync',
        since: new Date(current.sinceMs).toISOString(),
        recoveredAt: new Date(recoveredAtMs).toISOString(),
        gapSeconds: Math.round(gapMs / 1000),
        // The catalog carries no prices: price rules kept being evaluated through the gap.
        crossed: false,
        crossedRules: [],
        message: `The venue's catalog is readable again after a gap of ${formatSpan(gapMs)}; market and event updates are caught up.`,
      });
    }
    logger.info({ gapMs, accounts: current.accounts.size }, 'catalog sync recovered');
  }

  async function check(): Promise<void> {
    await checkFeed();
    await checkSync();
  }

  async function checkFeed(): Promise<void> {
    const at = now();
    const conns = options.connections().filter((c) => c.tokens.length > 0);
    // A closed socket gets no frames either, so its silence grows the same way; a reconnect
    // shorter than the span is no outage.
    const stale = conns.filter((c) => at - c.lastMessageAtMs > staleAfterMs);
    if (stale.length > 0) {
      const newTokens = new Set(stale.flatMap((c) => c.tokens).filter((t) => !outage?.before.has(t)));
      if (newTokens.size === 0) return;
      const current: Outage = outage ?? {
        sinceMs: Math.min(...stale.map((c) => c.lastMessageAtMs)),
        before: new Map(),
        accounts: new Map(),
      };
      outage = current;
      for (const t of newTokens) current.before.set(t, options.lastPrice(t));
      const affected = await rulesByAccount(newTokens);
      // An account already told about this outage is not told again when more connections go quiet.
      const notTold = new Map([...affected].filter(([a]) => !current.accounts.has(a)));
      for (const [a, pairs] of affected) if (current.accounts.has(a)) current.accounts.get(a)!.push(...pairs);
      await tellDelayed(current, notTold);
      return;
    }
    if (!outage) return;
    const current = outage;
    const fresh = current.accounts.size > 0 ? await options.refresh([...current.before.keys()]) : new Map<string, number>();
    outage = undefined;
    if (current.accounts.size > 0) await tellRecovered(current, fresh);
  }

  const timer = setInterval(() => {
    running = running.then(check).catch((err: unknown) => logger.error({ err }, 'feed health check failed'));
  }, options.checkIntervalMs ?? Math.min(5_000, Math.max(50, Math.floor(staleAfterMs / 4))));
  timer.unref();

  return {
    check: () => (running = running.then(check)),
    get outageSinceMs() {
      return outage?.sinceMs;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      await running.catch(() => {});
    },
  };
}
