import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startWebhookReceiver, type WebhookReceiver } from '../../src/cli/webhook-receiver.js';
import { signatureHeaders } from '../../src/delivery/senders/webhook.js';

// `npm run receiver`'s server, fed with the service's own signing code.
const SECRET = `whsec_${Buffer.from('a receiver test secret, 32 bytes').toString('base64')}`;
const OLD_SECRET = `whsec_${Buffer.from('the secret before the rotation!!').toString('base64')}`;
let receiver: WebhookReceiver;
const printed: string[] = [];

beforeAll(async () => {
  receiver = await startWebhookReceiver({ host: '127.0.0.1', port: 0, secret: SECRET, print: (line) => printed.push(line) });
});
afterAll(() => receiver?.close());

const post = (body: string, headers: Record<string, string>) =>
  fetch(receiver.url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });

describe('the local webhook receiver', () => {
  it('answers 200 to a delivery signed with the secret and prints a summary and the body', async () => {
    printed.length = 0;
    const body = JSON.stringify({ type: 'price_notification', marketQuestion: 'Will it rain?', detectedValue: 0.615 });
    const res = await post(body, signatureHeaders('n-1', body, SECRET, new Date()));
    expect(res.status).toBe(200);
    expect(printed).toHaveLength(1);
    expect(printed[0]).toMatch(/^\S+Z verified n-1: price_notification "Will it rain\?" at 61.5%\n {2}\{"type":"price_notification"/);
  });

  it('accepts either signature during a rotation (the new secret first, the old one beside it)', async () => {
    const body = JSON.stringify({ type: 'event_status_notification', eventTitle: 'An event' });
    const both = await post(body, signatureHeaders('n-2', body, OLD_SECRET, new Date(), SECRET));
    expect(both.status).toBe(200);
  });

  it('refuses 401 a wrong secret, a changed body, missing headers, and an old timestamp, saying so', async () => {
    printed.length = 0;
    const body = JSON.stringify({ type: 'price_notification' });
    expect((await post(body, signatureHeaders('n-3', body, OLD_SECRET, new Date()))).status).toBe(401);
    expect((await post(`${body} `, signatureHeaders('n-4', body, SECRET, new Date()))).status).toBe(401);
    expect((await post(body, {})).status).toBe(401);
    expect((await post(body, signatureHeaders('n-5', body, SECRET, new Date(Date.now() - 3_600_000)))).status).toBe(401);
    expect(printed).toHaveLength(4);
    for (const line of printed) expect(line).toMatch(/ refused /);
    expect(printed[2]).toContain('(no webhook-id)');
    expect((await fetch(receiver.url)).status).toBe(405);
  });
});
