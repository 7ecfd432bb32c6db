import supertest from 'supertest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config.js';
import { createApp } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { insertAccountWithToken } from '../../src/services/accounts/index.js';
import { TEST_SETTINGS } from '../support/context.js';
import { createTestDatabase, engineName } from '../support/db.js';

let database: Awaited<ReturnType<typeof createTestDatabase>>;
beforeAll(async () => {
  database = await createTestDatabase();
});
afterAll(() => database?.drop());

describe(`the request id in service logs (${engineName})`, () => {
  it("every line a service logs for a request carries that request's X-Request-Id", async () => {
    const chunks: string[] = [];
    const logger = createLogger('info', { write: (line: string) => chunks.push(line) });
    const { app, close } = createApp({ config: parseConfig(TEST_SETTINGS), database, logger, readiness: async () => ({ ready: true }) });
    try {
      const { token } = await insertAccountWithToken(database.db, {});
      const res = await supertest(app)
        .post('/channels/test')
        .set('Authorization', `Bearer ${token}`)
        .set('X-Request-Id', 'req-7f3a-test-send')
        .send({ type: 'In App' });
      expect(res.status).toBe(200);
      expect(res.headers['x-request-id']).toBe('req-7f3a-test-send');
      const lines = chunks.join('').trim().split('\n').map((l) => JSON.parse(l) as { msg: string; req?: { id?: string } });
      const serviceLine = lines.find((l) => l.msg === 'test send');
      expect(serviceLine?.req?.id).toBe('req-7f3a-test-send');
    } finally {
      await close();
    }
  });
});
