import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../support/context.js';
import { engineName } from '../support/db.js';

let env: TestEnv;
let doc: OpenApi;
beforeAll(async () => {
  env = await createTestEnv();
  doc = (await env.http.get('/openapi.json').expect(200)).body;
});
afterAll(() => env?.close());

interface OpenApi {
  paths: Record<string, Record<string, Operation>>;
  webhooks: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, Schema> };
}
interface Operation {
  security?: unknown[];
  requestBody?: { content: Record<string, { schema: Schema }> };
  responses: Record<string, { content?: Record<string, unknown> }>;
}
interface Schema {
  $ref?: string;
  required?: string[];
  properties?: Record<string, Schema>;
}

/** The operator's endpoints beside the API: probes, metrics and the document itself. */
const OUTSIDE_THE_API = ['GET /healthz', 'GET /readyz', 'GET /metrics', 'GET /openapi.json', 'GET /docs'];

/** Every method+path the running express app answers, read from its router (OpenAPI path form). */
function mountedRoutes(app: TestEnv['app']): string[] {
  const stack = (app.router as unknown as { stack: { route?: { path: string; methods: Record<string, boolean> } }[] }).stack;
  return stack.flatMap(({ route }) =>
    route
      ? Object.keys(route.methods)
          .filter((m) => m !== '_all')
          .map((m) => `${m.toUpperCase()} ${route.path.replace(/:(\w+)/g, '{$1}')}`)
      : [],
  );
}

function documentedRoutes(): string[] {
  return Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
}

const resolve = (schema: Schema): Schema =>
  schema.$ref ? doc.components.schemas[schema.$ref.replace('#/components/schemas/', '')]! : schema;

describe(`the route table and the OpenAPI document (${engineName})`, () => {
  it('documents every route the app answers, and answers every route it documents', () => {
    const mounted = mountedRoutes(env.app);
    expect(mounted).toEqual(expect.arrayContaining(OUTSIDE_THE_API));
    const api = mounted.filter((r) => !OUTSIDE_THE_API.includes(r));
    expect(new Set(api).size).toBe(api.length); // no method+path mounted twice
    expect(api.sort()).toEqual(documentedRoutes().sort());
    // The groups that were once wired outside createApp are part of it now.
    expect(api).toEqual(
      expect.arrayContaining(['POST /search', 'GET /markets/{marketId}/chart.svg', 'POST /demo/webhooks', 'GET /notifications', 'GET /notifications/stream']),
    );
  });

  it('describes the notification stream as Bearer-protected Server-Sent Events, resumable with Last-Event-ID', () => {
    const op = doc.paths['/notifications/stream']!.get! as Operation & { parameters?: { in: string; name: string }[] };
    expect(op.security).toEqual([{ bearer: [] }]);
    expect(Object.keys(op.responses['200']!.content!)).toEqual(['text/event-stream']);
    expect(Object.keys(op.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '429']));
    expect(op.parameters).toEqual(expect.arrayContaining([expect.objectContaining({ in: 'header', name: 'last-event-id' })]));
  });

  it("describes the webhook payloads in the document's webhooks section, with the spec's required fields", () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual(['digest_notification', 'event_status_notification', 'price_notification']);
    const payload = (name: string) => resolve(doc.webhooks[name]!.post!.requestBody!.content['application/json']!.schema);

    const price = payload('price_notification');
    expect(price.properties!.type).toMatchObject({ const: 'price_notification' });
    expect(price.required).toEqual(
      expect.arrayContaining([
        'type', 'userId', 'createdAt', 'subscriptionId', 'watchlistId', 'watchlistName', 'eventId', 'eventTitle', 'marketId',
        'marketQuestion', 'polymarketSlug', 'clobTokenId', 'subscriptionScope', 'subscriptionTypeConfig', 'triggerType',
        'detectedValue', 'detectedAt', 'detectedAtMs', 'sentFromPolymarketAtMs', 'channels',
      ]),
    );
    expect(price.required).not.toContain('detectionDetails');
    expect(price.required).not.toContain('polymarketSourceEvent');

    const status = payload('event_status_notification');
    expect(status.properties!.type).toMatchObject({ const: 'event_status_notification' });
    expect(status.required).toEqual(
      expect.arrayContaining([
        'type', 'userId', 'eventStatusScope', 'triggerType', 'createdAt', 'subscriptionId', 'watchlistId', 'watchlistName',
        'eventId', 'eventTitle', 'polymarketSlug', 'detectedAt', 'detectedAtMs', 'channels',
      ]),
    );
    for (const optional of ['marketId', 'marketQuestion', 'outcomes', 'outcomePrices']) {
      expect(status.properties![optional], optional).toBeDefined();
      expect(status.required).not.toContain(optional);
    }

    // Digests and quiet-hours summaries to a webhook: the spec's objects in one body (docs/delivery.md).
    const digest = payload('digest_notification');
    expect(digest.properties!.type).toMatchObject({ const: 'digest_notification' });
    expect(digest.required).toEqual(expect.arrayContaining(['type', 'userId', 'reason', 'count', 'notifications']));
  });
});
