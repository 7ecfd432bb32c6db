import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/index.js';
import { createToken, revokeToken } from '../../src/services/tokens/index.js';
import { engineName } from '../support/db.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { waitFor } from '../support/wait.js';

// The API keeps token checks in memory (src/services/tokens/check-cache.ts); a revocation must
// still refuse the token on the very next request, wherever it was made.

let env: TestEnv;
beforeAll(async () => {
  env = await createTestEnv();
});
afterAll(() => env?.close());

describe(`cached token checks and revocation (${engineName})`, () => {
  it('a token revoked by a service call (as a chat bot revokes) is refused on the next request', async () => {
    const a = await env.newAccount();
    const issued = await createToken({ ctx: a.ctx, input: { name: 'bot-revoked' } });
    const auth = { Authorization: `Bearer ${issued.token}` };
    // Used a few times first, so its check is cached.
    for (let i = 0; i < 3; i++) await env.http.get('/me').set(auth).expect(200);
    await revokeToken({ ctx: a.ctx, input: { tokenId: issued.id } });
    const res = await env.http.get('/me').set(auth).expect(401);
    expect(res.body).toEqual({ error: 'Token has been revoked' });
    // The account's other token is untouched.
    await env.http.get('/me').set(a.auth).expect(200);
  });

  it.skipIf(engineName !== 'postgres')('a token revoked by another process is refused once its notice arrives', async () => {
    const a = await env.newAccount();
    const issued = await createToken({ ctx: a.ctx, input: { name: 'elsewhere' } });
    const auth = { Authorization: `Bearer ${issued.token}` };
    for (let i = 0; i < 3; i++) await env.http.get('/me').set(auth).expect(200);
    // Another process: its own connection pool, no shared memory with the app.
    const other = await openDatabase({ databaseUrl: env.databaseUrl!, maxConnections: 1 });
    try {
      await revokeToken({ ctx: { ...a.ctx, database: other }, input: { tokenId: issued.id } });
    } finally {
      await other.close();
    }
    // Within the notice's delivery (milliseconds), inside the cache's 10 s safety bound.
    await waitFor(async () => (await env.http.get('/me').set(auth)).status === 401, { timeoutMs: 5_000, message: 'the revoked token to be refused' });
    const res = await env.http.get('/me').set(auth).expect(401);
    expect(res.body).toEqual({ error: 'Token has been revoked' });
  });
});
