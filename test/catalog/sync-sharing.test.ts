import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, eq } from 'drizzle-orm';
import { syncCatalogOnce } from '../../src/catalog/index.js';
import { REFRESH_BATCH_MARKETS } from '../../src/catalog/refresh.js';
import { catalogMarkets, marketSamples } from '../../src/db/schema/index.js';
import { createGammaClient } from '../../src/venue/gamma/client.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { silent, startSimulator } from '../venue/support.js';

type Started = Awaited<ReturnType<typeof startSimulator>>;

let env: TestEnv;
let s: Started;
beforeAll(async () => {
  env = await createTestEnv();
  s = await startSimulator({ eventCount: 1000 });
});
afterAll(async () => {
  await s?.sim.stop();
  await env?.close();
});

/** What `probe` answers, asked again and again while `pass` runs. */
async function askedDuring<T>(pass: Promise<unknown>, probe: () => Promise<T>): Promise<T[]> {
  let running = true;
  void pass.finally(() => (running = false)).catch(() => {});
  const seen: T[] = [];
  while (running) {
    // PGlite answers without a turn of the event loop: let the pass's venue calls through.
    await new Promise((resolve) => setImmediate(resolve));
    seen.push(await probe());
  }
  return seen;
}

describe(`a large catalog sync shares the database (${engineName})`, () => {
  it('queries issued during a pass, the first fill included, are answered while it is still writing', async () => {
    const gamma = createGammaClient({ baseUrl: s.urls.gammaUrl, logger: silent, timeoutMs: 10_000 });
    const passAt = (at: Date) => syncCatalogOnce({ database: env.database, gamma, logger: silent, now: () => at });

    // The first fill's rows are written batch by batch: a query answered between two batches sees
    // some of the markets. With one transaction for the fill, it would see none or all.
    const filling = passAt(new Date());
    const stored = await askedDuring(filling, async () => (await env.database.db.select({ n: count() }).from(catalogMarkets))[0]!.n);
    const first = await filling;
    expect(first.firstSync).toBe(true);
    expect(first.markets).toBeGreaterThan(2 * REFRESH_BATCH_MARKETS);
    expect(stored.filter((n) => n > 0 && n < first.markets).length).toBeGreaterThan(0);

    // The same for the samples of the second pass, written by the refresh batches.
    const at = new Date(Date.now() + 60_000);
    const pass = passAt(at);
    const sampled = await askedDuring(pass, async () => (await env.database.db.select({ n: count() }).from(marketSamples).where(eq(marketSamples.at, at)))[0]!.n);
    const report = await pass;
    expect(report.firstSync).toBe(false);
    expect(sampled.filter((n) => n > 0 && n < report.markets).length).toBeGreaterThan(0);
  });
});
