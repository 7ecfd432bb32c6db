import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEngineRole } from '../../src/runner/role.js';
import { parseMarketFrame } from '../../src/venue/clob/messages.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { fixtureText } from '../venue/support.js';
import { fakeStream, getSub, notificationsOf, seedEvent, silent, subscribe, watchlistWith } from './helpers.js';
import { waitFor } from '../support/wait.js';

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env?.close());

const FIXTURE_TOKEN = '65818619657568813474341868652308942079804919287380422192892211131408793125422';

/** A recorded fixture's messages, re-addressed to one of our seeded tokens. */
function fixtureMessages(name: string, token: string) {
  return parseMarketFrame(fixtureText(name).replaceAll(FIXTURE_TOKEN, token), silent);
}

describe(`engine role: moves the venue sends without a top of book (${engineName})`, () => {
  it.each([
    ['a legacy `changes` price_change', 'ws-legacy-move.json', 60, 0.65],
    ['".40"-style levels changed as "0.4"', 'ws-leading-dot-move.json', 44, 0.42],
  ])('%s makes a Crossing rule fire', async (_what, fixture, threshold, detected) => {
    const a = await env.newAccount();
    const event = await seedEvent(env.database, { markets: 1 });
    const wl = await watchlistWith(env, a, [event]);
    const m = event.markets[0]!;
    const subId = await subscribe(env, a, wl, { scope: 'Market', eventId: event.id, marketId: m.id, type: 'Crossing', threshold });
    const fake = fakeStream();
    const role = await startEngineRole({ database: env.database, config: env.config, logger: silent, marketStream: fake.stream });
    try {
      expect(fake.tokens()).toContain(m.yesTokenId);
      const [book, move] = fixtureMessages(fixture, m.yesTokenId);
      fake.emit(book!);
      await role.runner.idle();
      expect(await notificationsOf(env, subId)).toHaveLength(0);
      fake.emit(move!);
      await role.runner.idle();
      await waitFor(async () => { expect(await notificationsOf(env, subId)).toHaveLength(1); return true; });
      const [n] = await notificationsOf(env, subId);
      expect(n!.payload).toMatchObject({
        detectedValue: detected,
        clobTokenId: m.yesTokenId,
        // The source event in the form the venue sent it.
        polymarketSourceEvent: { event_type: 'price_change', asset_id: m.yesTokenId, changes: expect.any(Array) },
      });
      expect((await getSub(env, a, subId)).triggerCount).toBe(1);
    } finally {
      await role.stop();
    }
  });
});
