import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withTransaction } from '../../src/services/context.js';
import { isServiceError } from '../../src/services/errors.js';
import { createSubscription } from '../../src/services/subscriptions/index.js';
import { createWatchlist, listWatchlists, putWatchlistEvent } from '../../src/services/watchlists/index.js';
import { seedEvent, type SeededEvent } from '../support/catalog.js';
import { createTestEnv, type TestAccount, type TestEnv } from '../support/context.js';

let env: TestEnv;
let fed: SeededEvent;

beforeAll(async () => {
  env = await createTestEnv();
  fed = await seedEvent(env.database, { title: 'Fed decision in December', markets: 1 });
});
afterAll(() => env?.close());

const names = async (account: TestAccount) => (await listWatchlists({ ctx: account.ctx, input: {} })).map((w) => w.name);

describe('withTransaction(ctx, fn)', () => {
  it('a verb called with the transaction context joins it: its write is seen inside, and outside only after commit', async () => {
    const account = await env.newAccount();
    let seenOutsideBeforeCommit: string[] | undefined;
    await withTransaction(account.ctx, async (outerTx, txCtx) => {
      await createWatchlist({ ctx: txCtx, input: { name: 'Inside' } });
      expect((await listWatchlists({ ctx: txCtx, input: {} })).map((w) => w.name)).toEqual(['Inside']);
      await withTransaction(txCtx, async (innerTx) => expect(innerTx).toBe(outerTx));
      // PGlite has one connection, held by this transaction: only PostgreSQL can look from outside meanwhile.
      if (env.database.kind === 'postgres') seenOutsideBeforeCommit = await names(account);
    });
    if (env.database.kind === 'postgres') expect(seenOutsideBeforeCommit).toEqual([]);
    expect(await names(account)).toEqual(['Inside']);
  });

  it('a failing nested verb rolls back the writes of the verbs before it', async () => {
    const account = await env.newAccount();
    const failure = await withTransaction(account.ctx, async (_tx, txCtx) => {
      const watchlist = await createWatchlist({ ctx: txCtx, input: { name: 'Rolled back' } });
      await putWatchlistEvent({ ctx: txCtx, input: { watchlistId: watchlist.id, eventId: fed.id, body: undefined } });
      return createSubscription({
        ctx: txCtx,
        input: {
          watchlistId: watchlist.id,
          subscriptionScope: 'Market',
          eventId: fed.id,
          marketId: fed.markets[0]!.id,
          subscriptionTypeConfig: { type: 'Crossing Step', config: { params: { threshold_percent: 60 } } },
          channels: [{ type: 'In App' }],
        },
      });
    }).catch((err: unknown) => err);
    expect(isServiceError(failure) && failure.kind).toBe('validation');
    expect(await names(account)).toEqual([]);
  });

  it('without a transaction in the context each verb commits on its own, as before', async () => {
    const account = await env.newAccount();
    await createWatchlist({ ctx: account.ctx, input: { name: 'Kept' } });
    await expect(createWatchlist({ ctx: account.ctx, input: { name: '' } })).rejects.toThrow(/name must not be empty/);
    expect(await names(account)).toEqual(['Kept']);
  });
});

describe('validation errors carry their issues in data, the REST message unchanged', () => {
  it('path, code, bound and the value given', async () => {
    const account = await env.newAccount();
    const watchlist = await createWatchlist({ ctx: account.ctx, input: { name: 'W', events: { [fed.id]: {} } } });
    const err = await createSubscription({
      ctx: account.ctx,
      input: {
        watchlistId: watchlist.id,
        subscriptionScope: 'Market',
        eventId: fed.id,
        marketId: fed.markets[0]!.id,
        subscriptionTypeConfig: { type: 'Crossing Up', config: { params: { threshold_percent: 150 } } },
        channels: [{ type: 'In App' }],
      },
    }).catch((e: unknown) => e);
    if (!isServiceError(err)) throw new Error('expected a service error');
    expect(err.message).toBe('subscriptionTypeConfig.config.params.threshold_percent: threshold_percent must be less than 100');
    expect(err.detail.issues).toEqual([
      {
        path: ['subscriptionTypeConfig', 'config', 'params', 'threshold_percent'],
        code: 'too_big',
        bound: 100,
        inclusive: false,
        input: 150,
        message: 'threshold_percent must be less than 100',
      },
    ]);
  });
});
