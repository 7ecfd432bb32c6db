import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AccountPreferences, SubscriptionPreferences } from '../../src/http/response-schemas.js';
import { createSubscription } from '../outbox/support.js';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';

// The noise-control routes of #19 as the OpenAPI document describes them: each operation with its
// request body, its answer and its errors, and the server's real answers matching that answer.
// (route-table.test.ts already fails when a mounted route is missing from the document.)

let env: TestEnv;
let doc: OpenApi;
beforeAll(async () => {
  env = await createTestEnv();
  doc = (await env.http.get('/openapi.json').expect(200)).body;
});
afterAll(() => env?.close());

interface Schema {
  $ref?: string;
  type?: string | string[];
  required?: string[];
  properties?: Record<string, Schema>;
  anyOf?: Schema[];
  enum?: string[];
  minimum?: number;
  maximum?: number;
  pattern?: string;
  format?: string;
  description?: string;
  additionalProperties?: boolean;
}
interface Operation {
  security?: unknown[];
  parameters?: { in: string; name: string; required?: boolean }[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, { schema: Schema }> }>;
}
interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}

const resolve = (schema: Schema): Schema => (schema.$ref ? doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')]! : schema);
const op = (path: string, method: string): Operation => {
  const found = doc.paths[path]?.[method];
  expect(found, `${method.toUpperCase()} ${path} in the OpenAPI document`).toBeDefined();
  return found!;
};
const body = (o: Operation): Schema => resolve(o.requestBody!.content['application/json']!.schema);
const answer = (o: Operation): Schema => resolve(o.responses['200']!.content!['application/json']!.schema);
const errors = (o: Operation): string[] => Object.keys(o.responses).filter((code) => code !== '200');

const PREFS = '/subscription/{subscriptionId}/preferences';
const SNOOZE = '/subscription/{subscriptionId}/snooze';

describe(`the noise-control routes in the OpenAPI document (${engineName})`, () => {
  it('describes every #19 route: Bearer, the subscription id in the path, its body, its answer and its errors', () => {
    const routes: [string, string, { body: boolean; notFound: boolean }][] = [
      [PREFS, 'get', { body: false, notFound: true }],
      [PREFS, 'put', { body: true, notFound: true }],
      [SNOOZE, 'post', { body: true, notFound: true }],
      [SNOOZE, 'delete', { body: false, notFound: true }],
      ['/preferences', 'get', { body: false, notFound: false }],
      ['/preferences', 'put', { body: true, notFound: false }],
    ];
    for (const [path, method, expects] of routes) {
      const o = op(path, method);
      const name = `${method.toUpperCase()} ${path}`;
      expect(o.security, name).toEqual([{ bearer: [] }]);
      if (path.includes('{subscriptionId}')) expect(o.parameters, name).toEqual([expect.objectContaining({ in: 'path', name: 'subscriptionId', required: true })]);
      expect(Boolean(o.requestBody), name).toBe(expects.body);
      expect(errors(o).sort(), name).toEqual([...(expects.body ? ['400', '413'] : []), '401', ...(expects.notFound ? ['404'] : []), '429'].sort());
      for (const code of errors(o)) expect(resolve(o.responses[code]!.content!['application/json']!.schema).required, `${name} ${code}`).toEqual(['error']);
    }
  });

  it('gives the bodies with their fields, bounds and enums, and the answers with every field required', () => {
    const put = body(op(PREFS, 'put'));
    expect(put.additionalProperties).toBe(false);
    expect(Object.keys(put.properties!)).toEqual(['snoozedUntil', 'delivery', 'rearmPoints']);
    expect(put.properties!.delivery!.enum).toEqual(['instant', 'hourly', 'daily']);
    expect(put.properties!.rearmPoints).toMatchObject({ type: 'number', minimum: 0, maximum: 50 });

    const snooze = body(op(SNOOZE, 'post'));
    expect(snooze.properties!.for!.enum).toEqual(['1h', '8h', '24h', '1w']);
    expect(snooze.properties!.until).toMatchObject({ type: 'string', format: 'date-time' });
    expect(snooze.description).toMatch(/exactly one of `for`.*or `until`/i);

    const account = body(op('/preferences', 'put'));
    expect(Object.keys(account.properties!)).toEqual(['timezone', 'quietHours']);
    const quiet = account.properties!.quietHours!.anyOf!.find((s) => s.type === 'object')!;
    expect(quiet.required).toEqual(['start', 'end']);
    expect(quiet.properties!.start!.pattern).toBeDefined();
    expect(quiet.properties!.channels!.description).toMatch(/Discord and Telegram when left out/);

    for (const [path, method] of [[PREFS, 'get'], [PREFS, 'put'], [SNOOZE, 'post'], [SNOOZE, 'delete']] as const) {
      expect(answer(op(path, method)), `${method} ${path}`).toMatchObject({ required: ['snoozedUntil', 'delivery', 'rearmPoints'], additionalProperties: false });
    }
    expect(answer(op(PREFS, 'get')).properties!.snoozedUntil!.anyOf).toEqual([expect.objectContaining({ format: 'date-time' }), { type: 'null' }]);
    for (const method of ['get', 'put']) expect(answer(op('/preferences', method))).toMatchObject({ required: ['timezone', 'quietHours'], additionalProperties: false });
  });

  it("the server's answers on these routes are what the document says", async () => {
    const a = await env.newAccount();
    const { subscriptionId: id } = await createSubscription(env, a, [{ type: 'In App' }]);
    const answers = [
      (await env.http.get(`/subscription/${id}/preferences`).set(a.auth).expect(200)).body,
      (await env.http.put(`/subscription/${id}/preferences`).set(a.auth).send({ delivery: 'hourly', rearmPoints: 2 }).expect(200)).body,
      (await env.http.post(`/subscription/${id}/snooze`).set(a.auth).send({ for: '1w' }).expect(200)).body,
      (await env.http.delete(`/subscription/${id}/snooze`).set(a.auth).expect(200)).body,
    ];
    for (const got of answers) expect(SubscriptionPreferences.safeParse(got).success, JSON.stringify(got)).toBe(true);
    expect(answers[2].snoozedUntil).toEqual(expect.any(String));

    const account = [
      (await env.http.get('/preferences').set(a.auth).expect(200)).body,
      (await env.http.put('/preferences').set(a.auth).send({ timezone: 'Europe/Paris', quietHours: { start: '22:00', end: '07:00' } }).expect(200)).body,
    ];
    for (const got of account) expect(AccountPreferences.safeParse(got).success, JSON.stringify(got)).toBe(true);
    expect(account[1]).toEqual({ timezone: 'Europe/Paris', quietHours: { start: '22:00', end: '07:00', channels: ['Discord', 'Telegram'] } });
  });
});
