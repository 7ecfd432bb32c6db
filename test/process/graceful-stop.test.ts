import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/index.js';
import { startReceiver, type Receiver } from '../delivery/support/receiver.js';
import { waitFor } from '../support/wait.js';
import { ensureBuilt, killLeftovers, serviceEnv, startBuiltService, stopService, type ServiceProcess } from '../support/service-process.js';

// SIGTERM in the middle of a burst of firings, on the production start: the process drains and
// exits 0 in time, and after a restart every firing written is delivered once per webhook-id.

let dataDir: string;
let receiver: Receiver;
/** webhook-id → how many times the receiver got it. */
const received = new Map<string, number>();

beforeAll(async () => {
  await ensureBuilt();
  dataDir = path.join(await mkdtemp(path.join(tmpdir(), 'oddswatch-graceful-')), 'data');
  // A slow receiver: sends are in flight when the signal comes.
  receiver = await startReceiver((req, res) => {
    const id = String(req.headers['webhook-id']);
    received.set(id, (received.get(id) ?? 0) + 1);
    setTimeout(() => res.writeHead(200).end('ok'), 200);
  });
}, 180_000);

afterAll(async () => {
  killLeftovers();
  await receiver?.close();
  if (dataDir) await rm(path.dirname(dataDir), { recursive: true, force: true });
});

const json = { 'content-type': 'application/json' };

function env() {
  return serviceEnv(dataDir, {
    VENUE: 'simulator',
    SIMULATOR_PORT: '0',
    SIMULATOR_RANDOM_WALK: 'false',
    ROLES: 'api,engine,worker,sync',
    ALLOW_PRIVATE_URLS: 'true',
    RATE_LIMIT_PER_MINUTE: '1000000',
    SEARCH_RATE_LIMIT_PER_MINUTE: '1000000',
    // Few sends at once: most of the burst is still queued when the signal comes.
    DELIVERY_CONCURRENCY: '4',
    WEBHOOK_RETRY_DELAY_MS: '200',
  });
}

async function call(service: ServiceProcess, token: string, method: string, route: string, body?: unknown) {
  const res = await fetch(`${service.url}${route}`, {
    method,
    headers: { ...json, Authorization: `Bearer ${token}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any };
}

const movePrice = (service: ServiceProcess, marketId: string, price: number) =>
  fetch(`${service.controlUrl}/markets/${marketId}/price`, { method: 'POST', headers: json, body: JSON.stringify({ price }) }).then((r) => {
    if (!r.ok) throw new Error(`price move answered ${r.status}`);
  });

async function notificationIds(service: ServiceProcess, token: string): Promise<string[]> {
  const ids: string[] = [];
  let before: string | null = null;
  do {
    const page: { body: { notifications: { id: string }[]; nextBefore: string | null } } = await call(
      service,
      token,
      'GET',
      `/notifications?limit=200${before ? `&before=${before}` : ''}`,
    );
    ids.push(...page.body.notifications.map((n) => n.id));
    before = page.body.nextBefore;
  } while (before);
  return ids;
}

describe('SIGTERM during a burst of firings (node dist/main.js, PGlite)', () => {
  it('exits 0 within 10 s; after a restart every written firing is delivered once and nothing stays claimed', async () => {
    const first = await startBuiltService(env());
    const token = /API token \(shown once\): (ow_\S+)/.exec(first.printed.join('\n'))![1]!;

    // The catalog is in once search answers; a dozen markets of a few events.
    const phrases = ['bitcoin', 'ethereum', 'solana', 'fed', 'election'].map((text) => ({ text, include: true }));
    const events = await waitFor(async () => {
      const res = await fetch(`${first.url}/search?limit=50`, { method: 'POST', headers: json, body: JSON.stringify({ keyphrases: phrases, searchMatchOperator: 'OR' }) });
      const body = (await res.json()) as { id: string; markets: { id: string }[] }[];
      return res.ok && body.length > 0 && body;
    }, { timeoutMs: 30_000, message: 'the first catalog sync' });
    const markets = events.flatMap((e) => e.markets.map((m) => ({ eventId: e.id, marketId: m.id }))).slice(0, 12);
    const eventIds = [...new Set(markets.map((m) => m.eventId))];
    const wl = await call(first, token, 'POST', '/watchlists', { name: 'Burst', events: Object.fromEntries(eventIds.map((id) => [id, { autoFetch: true }])) });
    expect(wl.status).toBe(201);

    await Promise.all(markets.map((m) => movePrice(first, m.marketId, 0.3)));
    let subscriptions = 0;
    for (const { eventId, marketId } of markets) {
      for (const threshold of [35, 45, 55, 65]) {
        const sub = await call(first, token, 'POST', '/subscriptions', {
          watchlistId: wl.body.watchList.id,
          subscriptionScope: 'Market',
          eventId,
          marketId,
          subscriptionTypeConfig: { type: 'Crossing Up', config: { params: { threshold_percent: threshold } } },
          triggerType: 'One Time',
          channels: [{ type: 'Webhook', settings: { webhookUrl: `${receiver.url}/hook` } }],
        });
        expect(sub.status).toBe(201);
        subscriptions++;
      }
    }
    // The engine loads the rules from the change feed and subscribes to the markets' books: its
    // market connections follow every market's token (shown in /readyz).
    await waitFor(async () => {
      const res = await fetch(`${first.url}/readyz`);
      const feed = ((await res.json()) as { details?: { feed?: { tokens: number; open: boolean }[] } }).details?.feed ?? [];
      return feed.length > 0 && feed.every((c) => c.open) && feed.reduce((n, c) => n + c.tokens, 0) >= markets.length;
    }, { timeoutMs: 20_000, message: 'the engine following every market' });
    // Prices set again now that the engine follows them: once every market connection carried a
    // frame sent after this, the venue has the subscriptions and the engine saw 0.3 before the
    // burst (frames of one connection arrive in order). lagSeconds is rounded to 0.1 s: 50 ms margin.
    const movedAt = Date.now();
    await Promise.all(markets.map((m) => movePrice(first, m.marketId, 0.3)));
    await waitFor(async () => {
      const askedAt = Date.now();
      const res = await fetch(`${first.url}/readyz`);
      const feed = ((await res.json()) as { details?: { feed?: { lagSeconds: number }[] } }).details?.feed ?? [];
      return feed.length > 0 && feed.every((c) => askedAt - c.lagSeconds * 1000 - 50 > movedAt);
    }, { timeoutMs: 20_000, message: 'a frame after the prices were set to 0.3 on every market connection' });

    // The burst: every market crosses every threshold; the signal comes with the first webhook.
    await Promise.all(markets.map((m) => movePrice(first, m.marketId, 0.7)));
    await waitFor(() => received.size > 0, { timeoutMs: 20_000, message: 'the first webhook of the burst' });
    const stopped = await stopService(first, 'SIGTERM');
    expect(stopped.code).toBe(0);
    expect(stopped.ms).toBeLessThan(10_000);
    const beforeRestart = received.size;

    const again = await startBuiltService(env());
    let written: string[] = [];
    try {
      await waitFor(async () => {
        written = await notificationIds(again, token);
        return written.length > 0 && written.every((id) => received.has(id));
      }, { timeoutMs: 60_000, message: 'every written firing delivered after the restart' });
    } finally {
      expect((await stopService(again)).code).toBe(0);
    }

    // The signal came in the middle: part of the burst was delivered only after the restart.
    expect(beforeRestart).toBeLessThan(written.length);
    expect(written.length).toBeLessThanOrEqual(subscriptions);
    // Exactly once per webhook-id, and nothing the receiver got that was not written.
    expect([...received.entries()].filter(([, n]) => n !== 1)).toEqual([]);
    expect([...received.keys()].sort()).toEqual([...written].sort());

    const database = await openDatabase({ dataDir });
    try {
      const rows = await database.rows<{ status: string; claimed: boolean; n: number }>(
        sql`select status, lease_until is not null as claimed, count(*)::int as n from deliveries group by 1, 2 order by 1, 2`,
      );
      expect(rows).toEqual([{ status: 'SENT', claimed: false, n: written.length }]);
    } finally {
      await database.close();
    }
  }, 240_000);
});
