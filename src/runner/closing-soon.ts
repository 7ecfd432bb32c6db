import { sql } from 'drizzle-orm';
import type { Database, Tx } from '../db/client.js';
import { closingSoonMarks } from '../db/schema/index.js';
import { CLOSING_SOON_TYPE } from '../domain/enums.js';
import type { BatchingOptions } from '../delivery/enqueue.js';
import { statusPayloadBase } from '../delivery/payloads.js';
import type { Logger } from '../logger.js';
import { loadEvent } from './catalog-effects.js';
import { fireLifecycle } from './lifecycle-fire.js';

// Closing Soon: a market's endDate coming within a rule's `hours_before`. The clock alone brings a
// market into a window (no sync needs to change anything), so a timer checks every engine's rules;
// the stored endDate follows the venue at every sync. What fired is stored (`closing_soon_marks`)
// with the notice: a restart does not fire again, two engine processes checking at once fire
// once (the mark's key), and a mark is dropped when its endDate moves out of the window again,
// which re-arms the rule for that market.

export interface ClosingSoonOptions {
  database: Database;
  logger: Logger;
  /** CLOSING_SOON_CHECK_MS (default 30 s: a window is then told at most half a minute late). */
  checkIntervalMs?: number;
  /** The clock (default Date.now): tests move it instead of waiting for a window. */
  now?: () => number;
  batching?: BatchingOptions;
}

export interface ClosingSoonChecker {
  start(): Promise<void>;
  stop(): Promise<void>;
  /** One check at the clock's time; answers how many notices it wrote. */
  checkOnce(): Promise<number>;
}

type Due = {
  subscription_id: string;
  market_id: string;
  event_id: string;
  end_date_ms: number | string;
  hours: number | string;
};

const HOURS = sql`(s.rule_params->>'hours_before')::int`;

/**
 * Marks go, re-arming their pair, when the market closed, its endDate is no longer within the
 * rule's window, or the user changed the rule (restart, update) since: as for price rules, a user
 * change clears what the rule's last firing held back.
 */
async function rearm(database: Database, at: string): Promise<void> {
  await database.rows(sql`
    delete from closing_soon_marks k using subscriptions s, catalog_markets m
    where k.subscription_id = s.id and k.market_id = m.id
      and (m.closed or m.end_date is null or m.end_date - make_interval(hours => ${HOURS}) > ${at}::timestamptz
           or (s.updated_at is not null and s.updated_at > k.fired_at))`);
}

/** Armed, unexpired Closing Soon rules × the open markets they cover whose endDate is within the window and not marked. */
async function dueNow(database: Database, at: string): Promise<Due[]> {
  return database.rows<Due>(sql`
    with s as (
      select id, scope, event_id, market_id, watchlist_id, rule_params from subscriptions
      where enabled and type = ${CLOSING_SOON_TYPE} and (expires_at is null or expires_at > ${at}::timestamptz)
    ), pairs as (
      select s.id as sid, s.market_id as mid from s where s.scope = 'Market'
      union
      select s.id, m.id from s join catalog_markets m on m.event_id = s.event_id where s.scope = 'Event'
      union
      select s.id, wm.market_id from s join watchlist_markets wm on wm.watchlist_id = s.watchlist_id where s.scope = 'Watchlist'
    )
    select s.id as subscription_id, m.id as market_id, m.event_id,
           (extract(epoch from m.end_date) * 1000)::float8 as end_date_ms, ${HOURS} as hours
    from pairs p
    join s on s.id = p.sid
    join catalog_markets m on m.id = p.mid
    where not m.closed and m.end_date > ${at}::timestamptz
      and m.end_date - make_interval(hours => ${HOURS}) <= ${at}::timestamptz
      and not exists (select 1 from closing_soon_marks k where k.subscription_id = s.id and k.market_id = m.id)
    order by m.end_date, s.id, m.id`);
}

export function createClosingSoonChecker(options: ClosingSoonOptions): ClosingSoonChecker {
  const { database, logger } = options;
  const now = options.now ?? Date.now;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<number> = Promise.resolve(0);

  async function check(): Promise<number> {
    const atMs = now();
    const at = new Date(atMs).toISOString();
    await rearm(database, at);
    const due = await dueNow(database, at);
    const events = new Map<string, Awaited<ReturnType<typeof loadEvent>>>();
    let written = 0;
    for (const d of due) {
      if (!events.has(d.event_id)) events.set(d.event_id, await loadEvent(database.db, d.event_id));
      const loaded = events.get(d.event_id);
      const market = loaded?.markets.find((m) => m.id === d.market_id);
      if (!loaded || !market) continue;
      const detectedAt = new Date(atMs);
      const endDate = new Date(Number(d.end_date_ms));
      const base = statusPayloadBase(loaded.event, { scope: 'Market', trigger: 'Closing Soon', market }, detectedAt);
      const mark = async (tx: Tx) => {
        const inserted = await tx
          .insert(closingSoonMarks)
          .values({ subscriptionId: d.subscription_id, marketId: d.market_id, endDate, firedAt: detectedAt })
          .onConflictDoNothing()
          .returning({ id: closingSoonMarks.subscriptionId });
        return inserted.length > 0;
      };
      const outcome = await fireLifecycle(
        database.db,
        {
          subscriptionId: d.subscription_id,
          marketId: d.market_id,
          base,
          details: { endDate: endDate.toISOString(), hoursBefore: Number(d.hours) },
          detectedAt,
          dedupeKey: `${d.subscription_id}:closing-soon:${d.market_id}:${atMs}`,
          holdToInterval: true,
        },
        options.batching,
        mark,
      );
      if (outcome === 'written') written++;
    }
    if (written > 0) logger.info({ written }, 'closing soon notices written');
    return written;
  }

  const checker: ClosingSoonChecker = {
    async start() {
      await checker.checkOnce();
      timer = setInterval(() => {
        checker.checkOnce().catch((error: unknown) => logger.error({ err: error }, 'closing soon check failed'));
      }, options.checkIntervalMs ?? 30_000);
      timer.unref();
    },
    async stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      await running.catch(() => 0);
    },
    checkOnce() {
      // One check at a time; a caller arriving mid-check waits for it and then runs its own.
      running = running.catch(() => 0).then(check);
      return running;
    },
  };
  return checker;
}
