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

/** The app with its log lines kept in memory. */
function loggedApp() {
  const chunks: string[] = [];
  const logger = createLogger('info', { write: (line: string) => chunks.push(line) });
  return { chunks, ...createApp({ config: parseConfig(TEST_SETTINGS), database, logger, readiness: async () => ({ ready: true }) }) };
}

describe(`the request id in service logs (${engineName})`, () => {
  it("every line a service logs for a request carries that request's X-Request-Id", async () => {
    const { chunks, app, close } = loggedApp();
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

  // The request line is the operator's record of each request (src/http/app.ts): exactly these
  // fields, the URL's query never (it may carry a token), and the same request binding on the lines
  // a service logs for the request.
  it('logs one line a request: its id, method, path, client address, status and duration, nothing else', async () => {
    const { chunks, app, close } = loggedApp();
    try {
      const { token } = await insertAccountWithToken(database.db, {});
      await supertest(app).get('/watchlists?access_token=ow_secretsecretsecret&x=1').set('Authorization', `Bearer ${token}`).set('X-Request-Id', 'req-line-1').expect(200);
      await supertest(app).get('/subscription/nope').set('Authorization', `Bearer ${token}`).set('X-Request-Id', 'req-line-2').expect(404);
      const lines = chunks.join('').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
      const requestLines = lines.filter((l) => l.msg === 'request completed');
      expect(requestLines).toHaveLength(2);
      for (const [line, id, url, status] of [
        [requestLines[0]!, 'req-line-1', '/watchlists?[redacted]', 200],
        [requestLines[1]!, 'req-line-2', '/subscription/nope', 404],
      ] as const) {
        expect(Object.keys(line).sort()).toEqual(['level', 'msg', 'req', 'res', 'responseTime', 'service', 'time'].sort());
        expect(line.req).toEqual({ id, method: 'GET', url, remoteAddress: expect.stringMatching(/127\.0\.0\.1|::1/) });
        expect(line.res).toEqual({ statusCode: status });
        expect(line.responseTime).toEqual(expect.any(Number));
        expect(line.level).toBe(30);
      }
      expect(chunks.join('')).not.toContain('secretsecret');
    } finally {
      await close();
    }
  });
});
