import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAdminEndpoint } from '../../src/admin/server.js';
import { startSyncRole } from '../../src/catalog/role.js';
import { findRunningService } from '../../src/cli/admin-client.js';
import { parseConfig } from '../../src/config.js';
import { startVenue } from '../../src/venue/start.js';
import { createTestEnv, TEST_SETTINGS, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';
import { silent } from '../venue/support.js';

let env: TestEnv;
let dir: string;
beforeAll(async () => {
  env = await createTestEnv();
  dir = await mkdtemp(path.join(tmpdir(), 'ow-admin-'));
});
afterAll(async () => {
  await env?.close();
  await rm(dir, { recursive: true, force: true });
});

describe(`sync role wiring (${engineName})`, () => {
  it('VENUE=simulator starts a simulator whose catalog the sync role reads; sync-once through the admin endpoint', async () => {
    const config = parseConfig({
      ...TEST_SETTINGS,
      VENUE: 'simulator',
      SIMULATOR_PORT: '0',
      SIMULATOR_RANDOM_WALK: 'false',
      SYNC_INTERVAL_MS: '3600000',
    });
    const venue = await startVenue(config, silent);
    const role = startSyncRole({ config, database: env.database, logger: silent, gammaUrl: venue.gammaUrl });
    const admin = await startAdminEndpoint({ database: env.database, config, logger: silent }, dir, { syncOnce: role.syncOnce });
    try {
      expect(venue.gammaUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const client = await findRunningService(dir);
      const report = (await client!.call('/sync-once', {})) as { events: number; changes: Record<string, number> };
      expect(report.events).toBeGreaterThan(0);
      expect(report.changes).toEqual({ new_event: 0, new_market: 0, closed_market: 0, closed_event: 0, resolution: 0 });
    } finally {
      await admin.close();
      await role.stop();
      await venue.stop();
    }
  });

  it('VENUE=polymarket uses the configured URLs and starts nothing', async () => {
    const config = parseConfig({ ...TEST_SETTINGS, GAMMA_URL: 'http://127.0.0.1:9/gamma' });
    const venue = await startVenue(config, silent);
    expect(venue.gammaUrl).toBe('http://127.0.0.1:9/gamma');
    await venue.stop();
  });
});
