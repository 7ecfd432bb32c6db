import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { startEngineRole, type EngineRole } from '../../src/runner/role.js';
import type { SimMarket } from '../../src/simulator/state.js';
import { clock, getSub, movePrice, notificationsOf, savedPrice, seedFromSimulator } from '../runner/helpers.js';
import type { TestAccount, TestEnv } from '../support/context.js';
import { createTestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { expectNothingFor, waitFor } from '../support/wait.js';
import { startSimulator } from '../venue/support.js';

// Window moves end to end (#20 item 1): prices moved with the venue simulator's control endpoint,
// evaluated by the engine role on the simulator's market stream, with the rules' clock moved by
// the test so an hour passes at once. What a user sees: the notifications and their payloads.

const MIN = 60_000;
const logger = createLogger('silent');
const c = clock(Date.now());
let env: TestEnv;
let sim: Awaited<ReturnType<typeof startSimulator>>;
let engine: EngineRole | undefined;
let markets: SimMarket[];
let account: TestAccount;

beforeAll(async () => {
  env = await createTestEnv();
  sim = await startSimulator();
  markets = await seedFromSimulator(env.database, sim.sim.state, 5);
  engine = await startEngineRole({
    database: env.database, config: env.config, logger, clobUrl: sim.urls.clobUrl, clobWsUrl: sim.urls.clobWsUrl, ruleClock: c.now,
  });
  account = await env.newAccount();
});
afterAll(async () => {
  await engine?.stop();
  await sim?.sim.stop();
  await env?.close();
});

async function createRule(m: SimMarket, type: string, params: Record<string, unknown>, triggerType: 'One Time' | 'Recurring'): Promise<string> {
  const watchlist = await env.http.post('/watchlists').set(account.auth).send({ name: `moves ${m.id}`, events: { [m.eventId]: { autoFetch: true } } }).expect(201);
  const wl: string = watchlist.body.watchList.id;
  const res = await env.http.post('/subscriptions').set(account.auth).send({
    watchlistId: wl,
    subscriptionScope: 'Market',
    eventId: m.eventId,
    marketId: m.id,
    subscriptionTypeConfig: { type, config: { params } },
    triggerType,
    ...(triggerType === 'Recurring' ? { triggerInterval: '0m' } : {}),
    channels: [{ type: 'In App' }],
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.subscription.subscriptionId as string;
}

/** `ms` pass on the rules' clock, then the simulator displays `price` and the engine evaluates it. */
async function after(ms: number, m: SimMarket, price: number): Promise<void> {
  c.advance(ms);
  await movePrice(sim.urls.controlUrl, m.id, price);
  await waitFor(async () => (await savedPrice(env.database, m.tokenIds[0])) === price, { timeoutMs: 15_000, message: `the engine to see ${price}` });
}

/**
 * A move rule on a market displaying `price`, created once the engine follows the market (a rule
 * that never fires makes it, and it reads the simulator's own price first): its windows start at
 * `price`, nothing before.
 */
async function startAt(m: SimMarket, price: number, type: string, points: number, window: string, triggerType: 'One Time' | 'Recurring'): Promise<{ id: string }> {
  const before = engine!.runner.size;
  await createRule(m, 'Less Than', { threshold_percent: 0.5 }, 'Recurring');
  await waitFor(async () => (await savedPrice(env.database, m.tokenIds[0])) !== undefined, { timeoutMs: 15_000, message: 'the engine to follow the market' });
  await after(0, m, price);
  c.advance(25 * 60 * MIN);
  const id = await createRule(m, type, { threshold_percent: points, window }, triggerType);
  await waitFor(() => engine!.runner.size === before + 2, { message: 'the engine to load the move rule' });
  return { id };
}

const payloads = async (id: string) => (await notificationsOf(env, id)).map((n) => n.payload as Record<string, any>);

describe(`window moves through the simulator (${engineName})`, () => {
  it('a 10-point rise over two hours does not fire a 1-hour Moves Up By 10', async () => {
    const m = markets[0]!;
    const { id } = await startAt(m, 0.4, 'Moves Up By', 10, '1h', 'Recurring');
    await after(0, m, 0.41);
    await after(40 * MIN, m, 0.43);
    await after(40 * MIN, m, 0.47);
    await after(40 * MIN, m, 0.5);
    await expectNothingFor(500, async () => payloads(id), { message: 'a firing of a rise spread over two hours' });
  });

  it('the same rise within 40 minutes fires, once while it holds, and again for a new move after it dropped', async () => {
    const m = markets[1]!;
    const { id } = await startAt(m, 0.4, 'Moves Up By', 10, '1h', 'Recurring');
    const t0 = c.now();
    await after(0, m, 0.41);
    await after(20 * MIN, m, 0.45);
    await after(20 * MIN, m, 0.5);
    const [first] = await waitFor(async () => { const p = await payloads(id); return p.length === 1 && p; }, { message: 'the rise to fire' });
    expect(first).toMatchObject({
      type: 'price_notification',
      subscriptionTypeConfig: { type: 'Moves Up By', config: { params: { threshold_percent: 10, window: '1h' } } },
      detectedValue: 0.5,
      detectionDetails: { detectedValue: 0.5, previousValue: 0.4, window: '1h', windowStartValue: 0.4, windowStartTimeMs: t0, movePoints: 10 },
    });

    // Still up 15 from the window's lowest price: the same move, no second firing.
    await after(5 * MIN, m, 0.55);
    await expectNothingFor(500, async () => ((await payloads(id)).length > 1 ? true : undefined), { message: 'a second firing of the same move' });
    // An hour on the window's lowest is 0.52 (no move left); then a new rise of 11 fires again.
    await after(60 * MIN, m, 0.52);
    await after(10 * MIN, m, 0.63);
    const all = await waitFor(async () => { const p = await payloads(id); return p.length === 2 && p; }, { message: 'the new move to fire' });
    expect(all[1]!.detectionDetails).toMatchObject({ windowStartValue: 0.52, movePoints: 11, window: '1h' });
    expect((await getSub(env, account, id)).triggerCount).toBe(2);
  });

  it('Moves Down By, One Time: fires once on the fall within its window, then the rule is Triggered', async () => {
    const m = markets[2]!;
    const { id } = await startAt(m, 0.6, 'Moves Down By', 5, '15m', 'One Time');
    await after(0, m, 0.59);
    await after(5 * MIN, m, 0.57);
    await after(5 * MIN, m, 0.54);
    const [fired] = await waitFor(async () => { const p = await payloads(id); return p.length === 1 && p; }, { message: 'the fall to fire' });
    expect(fired!.detectionDetails).toMatchObject({ window: '15m', windowStartValue: 0.6, movePoints: -6, previousValue: 0.6 });
    await waitFor(async () => (await getSub(env, account, id)).status.reason === 'Triggered', { message: 'the One Time rule to turn off' });
    expect((await getSub(env, account, id)).status).toEqual({ enabled: false, reason: 'Triggered' });
    await after(MIN, m, 0.62);
    await after(MIN, m, 0.5);
    await expectNothingFor(500, async () => ((await payloads(id)).length > 1 ? true : undefined), { message: 'a One Time rule firing twice' });
  });

  it('Moves By fires either way, and a fall outside its window does not', async () => {
    const m = markets[3]!;
    const { id } = await startAt(m, 0.5, 'Moves By', 10, '5m', 'Recurring');
    await after(0, m, 0.49);
    await after(6 * MIN, m, 0.4); // 0.5 left the window a minute ago: down 9 only
    await expectNothingFor(500, async () => payloads(id), { message: 'a firing of a move outside the window' });
    await after(6 * MIN, m, 0.3); // 0.49 left too: down 10 from 0.4
    const [down] = await waitFor(async () => { const p = await payloads(id); return p.length === 1 && p; }, { message: 'the fall to fire' });
    expect(down!.detectionDetails).toMatchObject({ window: '5m', windowStartValue: 0.4, windowStartTimeMs: c.now(), movePoints: -10 });
    await after(10 * MIN, m, 0.32); // the old move left the window: the rule is armed again
    await after(MIN, m, 0.45);
    const all = await waitFor(async () => { const p = await payloads(id); return p.length === 2 && p; }, { message: 'the rise to fire' });
    expect(all[1]!.detectionDetails).toMatchObject({ window: '5m', windowStartValue: 0.3, movePoints: 15 });
  });
});
