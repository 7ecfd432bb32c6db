import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { count, eq } from 'drizzle-orm';
import { syncCatalogOnce } from '../../src/catalog/index.js';
import { REFRESH_BATCH_MARKETS } from '../../src/catalog/refresh.js';
import { marketSamples } from '../../src/db/schema/index.js';
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

describe(`a large catalog sync shares the database (${engineName})`, () => {
  it('queries issued during a pass are answered while it is still writing', async () => {
    const gamma = createGammaClient({ baseUrl: s.urls.gammaUrl, logger: silent, timeoutMs: 10_000 });
    const passAt = (at: Date) => syncCatalogOnce({ database: env.database, gamma, logger: silent, now: () => at });
    const first = await passAt(new Date());
    expect(first.markets).toBeGreaterThan(2 * REFRESH_BATCH_MARKETS);

    // The samples of the second pass are written batch by batch: a query answered between two
    // batches sees some of them. With one transaction for the pass, it would see none or all.
    const at = new Date(Date.now() + 60_000);
    let running = true;
    const pass = passAt(at).finally(() => (running = false));
    const seen: number[] = [];
    while (running) {
      // PGlite answers without a turn of the event loop: let the pass's venue calls through.
      await new Promise((resolve) => setImmediate(resolve));
      const [row] = await env.database.db.select({ n: count() }).from(marketSamples).where(eq(marketSamples.at, at));
      seen.push(row!.n);
    }
    const report = await pass;
    expect(report.firstSync).toBe(false);
    expect(seen.filter((n) => n > 0 && n < report.markets).length).toBeGreaterThan(0);
  });
});
