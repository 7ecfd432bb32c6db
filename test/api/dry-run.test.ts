import fc from 'fast-check';
import { inArray } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { notifications, priceSamples, subscriptions } from '../../src/db/schema/index.js';
import { TRIGGER_INTERVAL_MS, type PriceRuleType, type TriggerInterval } from '../../src/domain/enums.js';
import { ReferenceEvaluator } from '../../src/engine/reference.js';
import { thresholdFraction, type Firing } from '../../src/engine/rules.js';
import { DryRun } from '../../src/http/response-schemas.js';
import { seedEvent, type SeededEvent } from '../support/catalog.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { sampleDaysFor } from '../support/sample-days.js';

const MINUTE = 60_000;

let env: TestEnv;
let a: TestAccount;
let b: TestAccount;
let event: SeededEvent;
let watchlistId: string;
// Minute-aligned start of the recorded path, well inside the 7-day window.
const base = Math.floor(Date.now() / MINUTE) * MINUTE - 3 * 24 * 60 * MINUTE;

beforeAll(async () => {
  env = await createTestEnv();
  a = await env.newAccount();
  b = await env.newAccount();
  event = await seedEvent(env.database, { title: 'Dry run event', markets: 2 });
  const res = await env.http.post('/watchlists').set(a.auth).send({ name: 'Dry', events: { [event.id]: { autoFetch: true } } }).expect(201);
  watchlistId = res.body.watchList.id;
});
afterAll(() => env?.close());

interface Point { token: string; minute: number; price: number }

async function record(points: Point[]) {
  const tokens = [...new Set(event.markets.map((m) => m.yesTokenId))];
  await env.database.db.delete(priceSamples).where(inArray(priceSamples.tokenId, tokens));
  if (points.length === 0) return;
  await sampleDaysFor(env.database.db, 'price_samples', points.map((p) => new Date(base + p.minute * MINUTE)));
  await env.database.db.insert(priceSamples).values(points.map((p) => ({ tokenId: p.token, minute: new Date(base + p.minute * MINUTE), price: p.price })));
}

interface Rule { type: PriceRuleType; threshold: number; triggerType: 'One Time' | 'Recurring'; triggerInterval: TriggerInterval }

function body(rule: Rule, scope: 'Market' | 'Event' | 'Watchlist' = 'Market') {
  return {
    watchlistId,
    subscriptionScope: scope,
    ...(scope !== 'Watchlist' ? { eventId: event.id } : {}),
    ...(scope === 'Market' ? { marketId: event.markets[0]!.id } : {}),
    subscriptionTypeConfig: { type: rule.type, config: { params: { threshold_percent: rule.threshold } } },
    triggerType: rule.triggerType,
    ...(rule.triggerType === 'Recurring' ? { triggerInterval: rule.triggerInterval } : {}),
    channels: [{ type: 'In App' }],
  };
}

async function dryRun(rule: Rule, scope: 'Market' | 'Event' | 'Watchlist' = 'Market') {
  const res = await env.http.post('/subscriptions/dry-run').set(a.auth).send(body(rule, scope));
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return DryRun.parse(res.body);
}

/**
 * What the engine's reference evaluator fires for a rule created at `from` over the recorded path:
 * every point is a tick at its minute, and every other minute the engine's timer sweeps.
 */
function referenceFirings(rule: Rule, scope: 'Market' | 'Event', points: Point[], fromMs: number, toMs: number) {
  const markets = scope === 'Market' ? [event.markets[0]!] : event.markets;
  const ref = new ReferenceEvaluator();
  const oneTime = rule.triggerType === 'One Time';
  markets.forEach((m, ruleId) => ref.add({
    ruleId, subscriptionId: 's', marketId: m.id, token: m.yesTokenId, type: rule.type, threshold: thresholdFraction(rule.threshold),
    oneTime, intervalMs: oneTime ? 0 : TRIGGER_INTERVAL_MS[rule.triggerInterval], expiresAtMs: null, enabled: true,
  }, fromMs));
  const followed = new Set(markets.map((m) => m.yesTokenId));
  const at = new Map<number, Point[]>();
  for (const p of [...points].sort((x, y) => (x.token < y.token ? -1 : x.token > y.token ? 1 : 0))) {
    if (!followed.has(p.token)) continue;
    const t = base + p.minute * MINUTE;
    at.set(t, [...(at.get(t) ?? []), p]);
  }
  const out: Firing[] = [];
  for (let t = Math.ceil(fromMs / MINUTE) * MINUTE; t <= toMs; t += MINUTE) {
    const here = at.get(t);
    if (here) for (const p of here) out.push(...ref.tick(p.token, p.price, t));
    else out.push(...ref.sweep(t));
    if (oneTime && out.length > 0) break;
  }
  // Simultaneous firings (several markets in one minute) are listed by market id.
  out.sort((x, y) => x.atMs - y.atMs || (x.marketId < y.marketId ? -1 : x.marketId > y.marketId ? 1 : 0));
  return (oneTime ? out.slice(0, 1) : out).map((f) => ({
    at: new Date(f.atMs).toISOString(),
    price: f.price,
    level: f.levels ? f.levels[f.levels.length - 1]! : thresholdFraction(rule.threshold),
    ...(f.levels ? { levels: [...f.levels] } : {}),
    ...(markets.length > 1 ? { marketId: f.marketId } : {}),
  }));
}

const yes0 = () => event.markets[0]!.yesTokenId;
const yes1 = () => event.markets[1]!.yesTokenId;
const path = (token: string, steps: [number, number][]): Point[] => steps.map(([minute, price]) => ({ token, minute, price }));
const at = (minute: number) => new Date(base + minute * MINUTE).toISOString();

describe(`POST /subscriptions/dry-run (${engineName})`, () => {
  it('lists exactly the firings of the reference evaluator over a recorded path, for the four kinds of rule', async () => {
    const recorded = path(yes0(), [[0, 0.5], [1, 0.55], [2, 0.62], [3, 0.58], [4, 0.61], [40, 0.55], [41, 0.65], [50, 0.25], [60, 0.28], [120, 0.45], [130, 0.35]]);
    await record(recorded);
    const rules: Rule[] = [
      { type: 'Crossing Up', threshold: 60, triggerType: 'Recurring', triggerInterval: '30m' },
      { type: 'Crossing Step', threshold: 10, triggerType: 'Recurring', triggerInterval: '0m' },
      { type: 'Less Than', threshold: 30, triggerType: 'One Time', triggerInterval: '30m' },
      { type: 'Greater Than', threshold: 40, triggerType: 'Recurring', triggerInterval: '30m' },
    ];
    const results = [];
    for (const rule of rules) {
      const result = await dryRun(rule);
      expect(result.firings).toEqual(referenceFirings(rule, 'Market', recorded, Date.parse(result.from), Date.parse(result.to)));
      expect(result.count).toBe(result.firings.length);
      expect(Date.parse(result.to) - Date.parse(result.from)).toBe(7 * 24 * 60 * MINUTE);
      results.push(result);
    }
    const [up, step, less, greater] = results;
    // Crossing Up 60: at minute 2, not at 4 (inside the 30m pause), again at 41.
    expect(up!.firings).toEqual([{ at: at(2), price: 0.62, level: 0.6 }, { at: at(41), price: 0.65, level: 0.6 }]);
    expect(step!.firings[0]).toEqual({ at: at(2), price: 0.62, level: 0.6, levels: [0.6] });
    expect(less!.firings).toEqual([{ at: at(50), price: 0.25, level: 0.3 }]);
    // Greater Than 40 holds from the first sample and fires again each time its 30m pause ends.
    expect(greater!.firings.map((f) => f.at)).toEqual([at(0), at(30), at(120)]);
  });

  it('names the market of each firing when the scope covers several', async () => {
    const recorded = [...path(yes0(), [[0, 0.5], [5, 0.7]]), ...path(yes1(), [[0, 0.2], [7, 0.65]])];
    await record(recorded);
    const rule: Rule = { type: 'Crossing Up', threshold: 60, triggerType: 'Recurring', triggerInterval: '30m' };
    const result = await dryRun(rule, 'Event');
    expect(result.firings).toEqual([
      { at: at(5), price: 0.7, level: 0.6, marketId: event.markets[0]!.id },
      { at: at(7), price: 0.65, level: 0.6, marketId: event.markets[1]!.id },
    ]);
    expect((await dryRun(rule, 'Watchlist')).firings).toEqual(result.firings);
    // Level rules on both markets whose pauses end in the same minute fire together, listed by market.
    const both = [...path(yes1(), [[0, 0.5], [45, 0.1]]), ...path(yes0(), [[0, 0.5], [45, 0.1]])];
    await record(both);
    const greater: Rule = { type: 'Greater Than', threshold: 40, triggerType: 'Recurring', triggerInterval: '30m' };
    const together = await dryRun(greater, 'Event');
    expect(together.firings).toEqual(referenceFirings(greater, 'Event', both, Date.parse(together.from), Date.parse(together.to)));
    expect(together.firings.map((f) => [f.at, f.marketId])).toEqual(
      [at(0), at(30)].flatMap((t) => [...event.markets].map((m) => m.id).sort().map((id) => [t, id])),
    );
    await record(recorded);
    // One Time: the subscription disables itself at its first firing, on whichever market.
    expect((await dryRun({ ...rule, triggerType: 'One Time' }, 'Event')).firings).toEqual([result.firings[0]]);
  });

  it('agrees with the reference evaluator over random paths and rules', { timeout: 60_000 }, async () => {
    const types: PriceRuleType[] = ['Crossing', 'Crossing Up', 'Crossing Down', 'Crossing Step', 'Greater Than', 'Less Than'];
    const pointArb = fc.record({ token: fc.constantFrom(0, 1), gap: fc.integer({ min: 0, max: 45 }), price: fc.integer({ min: 1, max: 99 }) });
    await fc.assert(
      fc.asyncProperty(
        fc.array(pointArb, { maxLength: 40 }),
        fc.constantFrom(...types),
        fc.integer({ min: 1, max: 99 }),
        fc.constantFrom<Rule['triggerType']>('One Time', 'Recurring'),
        fc.constantFrom<TriggerInterval>('0m', '5m', '30m', '60m'),
        fc.constantFrom<'Market' | 'Event'>('Market', 'Event'),
        async (raw, type, pct, triggerType, triggerInterval, scope) => {
          let minute = 0;
          const seen = new Set<string>();
          const points: Point[] = [];
          for (const r of raw) {
            minute += r.gap;
            const token = r.token === 0 ? yes0() : yes1();
            if (seen.has(`${token}@${minute}`)) continue; // one sample per token and minute
            seen.add(`${token}@${minute}`);
            points.push({ token, minute, price: r.price / 100 });
          }
          const threshold = type === 'Crossing Step' ? [5, 10, 12.5, 25, 33][pct % 5]! : pct;
          const rule: Rule = { type, threshold, triggerType, triggerInterval };
          await record(points);
          const result = await dryRun(rule, scope);
          const expected = referenceFirings(rule, scope, points, Date.parse(result.from), Date.parse(result.to));
          // At most 1,000 listed, oldest first; `count` counts them all.
          expect(result.firings).toEqual(expected.slice(0, 1000));
          expect(result.count).toBe(expected.length);
        },
      ),
      { numRuns: 50 },
    );
  });

  it('refuses bad bodies and the catalog rule type with 400, another account\'s watchlist with 404, and stores nothing', async () => {
    const rule: Rule = { type: 'Crossing Up', threshold: 60, triggerType: 'Recurring', triggerInterval: '30m' };
    const post = (payload: object, who = a) => env.http.post('/subscriptions/dry-run').set(who.auth).send(payload);

    const empty = await post({});
    expect(empty.status).toBe(400);
    expect(empty.body.error).toMatch(/watchlistId/);
    const tooHigh = await post({ ...body(rule), subscriptionTypeConfig: { type: 'Crossing Up', config: { params: { threshold_percent: 150 } } } });
    expect(tooHigh.status).toBe(400);
    expect(tooHigh.body.error).toMatch(/threshold_percent/);
    const catalog = await post({ ...body(rule), subscriptionTypeConfig: { type: 'New or closed events and markets', config: { params: {} } } });
    expect(catalog.status).toBe(400);
    expect(catalog.body.error).toMatch(/dry run covers the price rules only/);
    const otherEvent = await seedEvent(env.database, { markets: 1 });
    const notInWatchlist = await post({ ...body(rule), eventId: otherEvent.id, marketId: otherEvent.markets[0]!.id });
    expect(notInWatchlist.status).toBe(400);
    expect(notInWatchlist.body.error).toMatch(/not in this watchlist/);
    const foreign = await post(body(rule), b);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toMatch(/Watchlist not found/);

    await dryRun(rule);
    expect((await env.http.get('/subscriptions').set(a.auth).expect(200)).body.subscriptions).toEqual([]);
    expect(await env.database.db.select().from(subscriptions)).toEqual([]);
    expect(await env.database.db.select().from(notifications)).toEqual([]);
  });

  it('is described in the OpenAPI document', async () => {
    const doc = (await env.http.get('/openapi.json').expect(200)).body;
    expect(doc.paths['/subscriptions/dry-run'].post.responses['200']).toBeDefined();
  });
});
