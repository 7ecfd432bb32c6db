import { and, eq, sql } from 'drizzle-orm';
import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notifications } from '../../src/db/schema/index.js';
import { startEngineRole, type EngineRole } from '../../src/runner/role.js';
import { createApp } from '../../src/http/app.js';
import { summarizeHealthNotice } from '../../src/delivery/senders/summary.js';
import { startCatalogSync } from '../../src/catalog/loop.js';
import { createGammaClient } from '../../src/venue/gamma/client.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { postJson, startSimulator } from '../venue/support.js';
import { movePrice, notificationsOf, savedPrice, seedFromSimulator, silent, subscribe, watchlistWith } from './helpers.js';
import { expectNothingFor, testClock, waitFor } from '../support/wait.js';
import { readSyncStatus } from '../../src/catalog/sync-status.js';

let env: TestEnv;
let sim: Awaited<ReturnType<typeof startSimulator>>;
let role: EngineRole | undefined;
beforeAll(async () => {
  env = await createTestEnv({ FEED_STALE_AFTER_MS: '1000', SYNC_FAILING_AFTER_MS: '1000' });
  sim = await startSimulator();
});
afterAll(async () => {
  await role?.stop();
  await sim?.sim.stop();
  await env?.close();
});


const feedNotices = async (accountId: string, source = 'market_feed') =>
  (
    await env.database.db
      .select()
      .from(notifications)
      .where(and(eq(notifications.accountId, accountId), eq(notifications.type, 'feed_health_notification')))
      .orderBy(notifications.id)
  )
    .map((n) => n.payload as Record<string, any>)
    .filter((p) => p.source === source);

const noticeChannels = async (accountId: string) => {
  const rows = await env.database.rows<{ id: string; types: string }>(sql`
    select n.id, string_agg(d.channel_type, ',' order by d.position) as types
    from notifications n join deliveries d on d.notification_id = n.id
    where n.account_id = ${accountId} and n.type = 'feed_health_notification'
    group by n.id order by n.id`);
  return rows.map((r) => r.types.split(','));
};

describe(`feed health (${engineName}, venue simulator, FEED_STALE_AFTER_MS=1000)`, () => {
  it('a stalled feed gives each affected account one delay notice and one recovery notice that reports the crossing made in the gap', async () => {
    const [m1, m2] = await seedFromSimulator(env.database, sim.sim.state, 2);
    const { controlUrl } = sim.urls;
    await movePrice(controlUrl, m1!.id, 0.4);
    await movePrice(controlUrl, m2!.id, 0.5);

    const a = await env.newAccount();
    const b = await env.newAccount();
    const c = await env.newAccount();
    const wlA = await watchlistWith(env, a, [{ id: m1!.eventId } as never]);
    const wlB = await watchlistWith(env, b, [{ id: m2!.eventId } as never]);
    const wlC = await watchlistWith(env, c, [{ id: m1!.eventId } as never]);
    const subA = await subscribe(env, a, wlA, {
      eventId: m1!.eventId, marketId: m1!.id, type: 'Crossing Up', threshold: 50,
      channels: [{ type: 'In App' }, { type: 'Telegram', settings: { telegramChatId: 5551 } }],
    });
    await subscribe(env, b, wlB, { eventId: m2!.eventId, marketId: m2!.id, type: 'Crossing Down', threshold: 30 });
    // An account with no price rule: its catalog rule does not follow the feed.
    await subscribe(env, c, wlC, { scope: 'Watchlist', type: 'New or closed events and markets' });

    role = await startEngineRole({
      database: env.database, config: env.config, logger: silent, clobUrl: sim.urls.clobUrl, clobWsUrl: sim.urls.clobWsUrl,
      feedCheckIntervalMs: 100, streamPingIntervalMs: 200,
    });
    await waitFor(async () => { expect(await savedPrice(env.database, m1!.tokenIds[0])).toBe(0.4); return true; });
    await waitFor(async () => { expect(await savedPrice(env.database, m2!.tokenIds[0])).toBe(0.5); return true; });
    expect(await feedNotices(a.userId)).toHaveLength(0);

    // /metrics and /readyz details show each connection's lag while the feed is live.
    const app = createApp({
      config: env.config, database: env.database, logger: silent,
      readiness: async () => ({ ready: true, details: { feed: role!.feedLag() } }),
      metricSources: { feed: () => role!.feedLag() },
    });
    try {
      const ready = await supertest(app.app).get('/readyz').expect(200);
      expect(ready.body.details.feed.length).toBeGreaterThan(0);
      expect(ready.body.details.feed[0]).toMatchObject({ connection: 0, open: true });
      expect(ready.body.details.feed[0].lagSeconds).toBeLessThan(1);

      expect((await postJson(`${controlUrl}/feed/stall`, { seconds: 2.5 })).status).toBe(200);
      // The venue may still send until it has taken the stall (a loaded machine answers late):
      // "since" is the last message, so no later than the stall's answer, and well before the notice.
      const stalledAt = Date.now();
      // Moved while the venue is silent: the stream never carries it.
      await movePrice(controlUrl, m1!.id, 0.6);

      await waitFor(async () => {
        expect(await feedNotices(a.userId)).toHaveLength(1);
        expect(await feedNotices(b.userId)).toHaveLength(1);
        return true;
      }, { timeoutMs: 4000 });
      const lagging = await supertest(app.app).get('/metrics').expect(200);
      const lag = Number(/oddswatch_feed_lag_seconds\{connection="0"\} ([\d.]+)/.exec(lagging.text)?.[1]);
      expect(lag).toBeGreaterThanOrEqual(1);
      const [delayed] = await feedNotices(a.userId);
      expect(delayed).toMatchObject({ type: 'feed_health_notification', event: 'feed_delayed', userId: a.userId });
      expect(Date.parse(delayed!.since)).toBeLessThanOrEqual(stalledAt);
      expect(delayed!.message).toContain(`Prices may be delayed since ${delayed!.since}`);
      // In App, and the chat the rule delivers to; B's rule has In App only.
      expect(await noticeChannels(a.userId)).toEqual([['In App', 'Telegram']]);
      expect(await noticeChannels(b.userId)).toEqual([['In App']]);
      // The rule did not fire: nothing carried the new price yet.
      expect(await notificationsOf(env, subA)).toHaveLength(0);

      await waitFor(async () => {
        expect(await feedNotices(a.userId)).toHaveLength(2);
        expect(await feedNotices(b.userId)).toHaveLength(2);
        return true;
      }, { timeoutMs: 6000 });
      const recoveredA = (await feedNotices(a.userId))[1]!;
      expect(recoveredA).toMatchObject({
        event: 'feed_recovered', crossed: true, since: delayed!.since,
        crossedRules: [{ subscriptionId: subA, type: 'Crossing Up', thresholdPercent: 50, priceBefore: 0.4, priceAfter: 0.6 }],
      });
      expect(recoveredA.gapSeconds).toBeGreaterThanOrEqual(2);
      expect(recoveredA.message).toMatch(/gap of \d+ s/);
      const recoveredB = (await feedNotices(b.userId))[1]!;
      expect(recoveredB).toMatchObject({ event: 'feed_recovered', crossed: false, crossedRules: [] });

      // The rule itself fires once, with the fresh price taken after the gap.
      await waitFor(async () => { expect(await notificationsOf(env, subA)).toHaveLength(1); return true; });
      expect((await notificationsOf(env, subA))[0]!.payload).toMatchObject({ detectedValue: 0.6 });
      const fresh = await supertest(app.app).get('/readyz').expect(200);
      expect(fresh.body.details.feed[0].lagSeconds).toBeLessThan(1);
    } finally {
      await app.close();
    }

    // Nothing more: one notice per account per outage, none for the account without a price rule.
    await expectNothingFor(
      500,
      async () => (await feedNotices(a.userId)).length > 2 || (await feedNotices(b.userId)).length > 2 || (await feedNotices(c.userId)).length > 0,
      { intervalMs: 100, message: 'another feed notice' },
    );
    expect(await feedNotices(a.userId)).toHaveLength(2);
    expect(await feedNotices(b.userId)).toHaveLength(2);
    expect(await feedNotices(c.userId)).toHaveLength(0);
    expect(await notificationsOf(env, subA)).toHaveLength(1);

    // Chat shows the notice as text with a title, not as a rule's alert.
    const [delayed, recovered] = await feedNotices(a.userId);
    expect(summarizeHealthNotice(recovered!)).toEqual({ title: 'Prices flowing again', message: recovered!.message });
    expect(summarizeHealthNotice(delayed!)).toEqual({ title: 'Prices may be delayed', message: delayed!.message });
  }, 30_000);

  it('a catalog sync failing longer than SYNC_FAILING_AFTER_MS gives each account with active rules one notice and one recovery', async () => {
    await role?.stop();
    // The outage's length is the feed health's clock, moved by hand past a 10-minute setting: the
    // real time a loaded machine takes stays far below it. The market feed's own limit is out of
    // reach of that move, so only the catalog sync is late.
    const SYNC_FAILING_AFTER_MS = 600_000;
    const clock = testClock();
    role = await startEngineRole({
      database: env.database, config: { ...env.config, SYNC_FAILING_AFTER_MS, FEED_STALE_AFTER_MS: 100 * SYNC_FAILING_AFTER_MS },
      logger: silent, clobUrl: sim.urls.clobUrl, clobWsUrl: sim.urls.clobWsUrl, feedCheckIntervalMs: 100, now: clock.now,
    });
    // No retries inside a pass: each failing pass counts.
    const gamma = createGammaClient({
      // A pass that times out on a loaded machine is a real failure the engine would tell: generous.
      baseUrl: sim.urls.gammaUrl, logger: silent, timeoutMs: 30_000, retry: { retries: 0, minDelayMs: 10, maxDelayMs: 10, maxRetryAfterMs: 10 },
    });
    const sync = startCatalogSync({ database: env.database, gamma, logger: silent, intervalMs: 200 });
    try {
      const withRules = await env.database.rows<{ accountId: string }>(sql`select distinct account_id as "accountId" from subscriptions where enabled`);
      expect(withRules.length).toBe(3);
      const idle = await env.newAccount(); // no rule: told nothing
      const syncNotices = async () => (await Promise.all(withRules.map(({ accountId }) => feedNotices(accountId, 'catalog_sync')))).flat();
      await expectNothingFor(600, syncNotices, { intervalMs: 100, message: 'a catalog sync notice while sync works' });
      for (const { accountId } of withRules) expect(await feedNotices(accountId, 'catalog_sync')).toHaveLength(0);

      // The venue's catalog fails until told otherwise (the longest fault the simulator takes).
      expect((await postJson(`${sim.urls.controlUrl}/gamma/fail`, { seconds: 3600, status: 503 })).status).toBe(200);
      await waitFor(async () => (await readSyncStatus(env.database)).failingSinceMs !== null, { message: 'a failed sync pass', timeoutMs: 30_000 });
      // Failing, but for less than the setting: nobody is told yet.
      await expectNothingFor(500, syncNotices, { intervalMs: 100, message: 'a catalog sync notice before SYNC_FAILING_AFTER_MS' });
      clock.advance(SYNC_FAILING_AFTER_MS);
      await waitFor(async () => {
        for (const { accountId } of withRules) expect(await feedNotices(accountId, 'catalog_sync')).toHaveLength(1);
        return true;
      });
      const [delayed] = await feedNotices(withRules[0]!.accountId, 'catalog_sync');
      expect(delayed).toMatchObject({ type: 'feed_health_notification', event: 'feed_delayed', source: 'catalog_sync' });
      expect(delayed!.message).toContain(`may be delayed since ${delayed!.since}`);

      // The catalog is back: the next pass succeeds, and everyone told hears so once.
      expect((await postJson(`${sim.urls.controlUrl}/gamma/fail`, { seconds: 0, status: 503 })).status).toBe(200);
      await waitFor(async () => {
        for (const { accountId } of withRules) expect(await feedNotices(accountId, 'catalog_sync')).toHaveLength(2);
        return true;
      });
      const recovered = (await feedNotices(withRules[0]!.accountId, 'catalog_sync'))[1]!;
      expect(recovered).toMatchObject({ event: 'feed_recovered', since: delayed!.since, crossed: false });
      expect(recovered.gapSeconds).toBeGreaterThanOrEqual(SYNC_FAILING_AFTER_MS / 1000);
      expect(recovered.message).toContain('after a gap of 10 minutes');

      // The notices past the first two, with the sync's last error: what made a third one.
      const extraNotices = async () => {
        const all = await syncNotices();
        if (all.length <= 2 * withRules.length) return [];
        return [{ notices: all.map((n) => ({ event: n.event, since: n.since })), sync: await readSyncStatus(env.database) }];
      };
      await expectNothingFor(500, extraNotices, { intervalMs: 100, message: 'a third catalog sync notice' });
      for (const { accountId } of withRules) expect(await feedNotices(accountId, 'catalog_sync')).toHaveLength(2);
      expect(await feedNotices(idle.userId, 'catalog_sync')).toHaveLength(0);
    } finally {
      await sync.stop();
    }
  }, 90_000);
});
