import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SHARD_LOCK_CLASS } from '../../src/db/coordination.js';
import { startEngineRole, type EngineRole } from '../../src/runner/role.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { waitFor } from '../support/wait.js';
import { startSimulator } from '../venue/support.js';
import { movePrice, notificationsOf, savedPrice, seedFromSimulator, silent, subscribe, watchlistWith } from './helpers.js';

/**
 * The engine's shard slot lives on a lock session of its own. When PostgreSQL ends that session
 * (a restart, an operator's pg_terminate_backend), the engine must claim a slot again and keep
 * firing; a query on a dead reserved connection used to throw outside any handler instead.
 */
describe.skipIf(!process.env.DATABASE_URL)('engine shard slot when its lock session dies (needs DATABASE_URL)', () => {
  let env: TestEnv;
  let sim: Awaited<ReturnType<typeof startSimulator>>;
  let role: EngineRole | undefined;
  beforeAll(async () => {
    env = await createTestEnv();
    sim = await startSimulator();
  });
  afterAll(async () => {
    await role?.stop();
    await sim?.sim.stop();
    await env?.close();
  });

  /** The backend holding each engine slot's lock, for this test's database. */
  const slotHolders = () =>
    env.database.rows<{ slot: number; pid: number; app: string }>(sql`
      select l.objid::int as slot, l.pid, a.application_name as app from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'advisory' and l.classid = ${SHARD_LOCK_CLASS} and l.objsubid = 2 and l.granted
        and l.database = (select oid from pg_database where datname = current_database())`);

  it('pg_terminate_backend of the lock session: the slot is claimed again and rules on its tokens still fire', async () => {
    const [market] = await seedFromSimulator(env.database, sim.sim.state, 1);
    const m = market!;
    const token = m.tokenIds[0];
    role = await startEngineRole({
      database: env.database, config: env.config, logger: silent, clobUrl: sim.urls.clobUrl, clobWsUrl: sim.urls.clobWsUrl, shardRefreshIntervalMs: 100,
    });
    const a = await env.newAccount();
    const wl = await watchlistWith(env, a, [{ id: m.eventId } as never]);
    await movePrice(sim.urls.controlUrl, m.id, 0.3);
    const subId = await subscribe(env, a, wl, { eventId: m.eventId, marketId: m.id, type: 'Crossing Up', threshold: 50 });
    await waitFor(async () => (await savedPrice(env.database, token)) === 0.3, { message: 'the first price saved' });

    const [before] = await slotHolders();
    // The slot is held on the lock session, not on a connection of the query pool.
    expect(before).toMatchObject({ slot: role.shards.slot, app: 'oddswatch-locks' });
    await env.database.rows(sql`select pg_terminate_backend(${before!.pid}::int)`);

    // Claimed again on a new session; this process is still the one member.
    const [after] = await waitFor(
      async () => {
        const holders = await slotHolders();
        return holders.length === 1 && holders[0]!.pid !== before!.pid ? holders : undefined;
      },
      { message: 'the shard slot claimed again on a new session' },
    );
    expect(after).toMatchObject({ slot: role.shards.slot, app: 'oddswatch-locks' });
    expect(role.shards.view).toEqual({ count: 1, rank: 0 });

    await movePrice(sim.urls.controlUrl, m.id, 0.6);
    const [n] = await waitFor(async () => {
      const rows = await notificationsOf(env, subId);
      return rows.length === 1 ? rows : undefined;
    }, { message: 'the crossing notification' });
    expect(n!.payload).toMatchObject({ clobTokenId: token, detectedValue: 0.6 });
  });
});
