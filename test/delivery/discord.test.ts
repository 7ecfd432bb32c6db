import { afterEach, describe, expect, it } from 'vitest';
import { createDiscordSender, formatDiscordEmbed } from '../../src/delivery/senders/discord.js';
import { job, links, marketClosedPayload, pricePayload } from './support/payloads.js';
import { json, startReceiver, type Receiver } from './support/receiver.js';

const sender = createDiscordSender({ allowPrivate: true, timeoutMs: 2000 });
let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

const hook = (r: Receiver) => ({ discordWebhookUrl: `${r.url}/api/webhooks/123/tok` });

describe('Discord embed', () => {
  it('shows a price alert: question, venue link, price as a percent, threshold, type, event, chart', () => {
    const embed = formatDiscordEmbed(pricePayload, links);
    expect(embed.title).toBe(pricePayload.marketQuestion);
    expect(embed.url).toBe(links.venueUrl);
    const fields = Object.fromEntries(embed.fields.map((f) => [f.name, f.value]));
    expect(fields).toMatchObject({
      Price: '53.5%',
      Threshold: '50%',
      Type: 'Crossing Up',
      Event: 'Who wins the election?',
      Watchlist: 'Elections <2026>',
    });
    expect(fields['Chart']).toContain(links.chartUrl);
    expect(embed.timestamp).toBe(pricePayload.detectedAt);
  });

  it('shows a market close with its outcomes', () => {
    const embed = formatDiscordEmbed(marketClosedPayload, { venueUrl: links.venueUrl });
    expect(embed.title).toBe('Will A win?');
    expect(embed.description).toContain('Market closed');
    expect(embed.fields.find((f) => f.name === 'Outcomes')?.value).toBe('Yes 99.5% · No 0.5%');
    expect(embed.fields.some((f) => f.name === 'Chart')).toBe(false);
  });

  it('titles an event close with the event and says "Event closed"', () => {
    const { marketId: _m, marketQuestion: _q, outcomes: _o, outcomePrices: _p, ...event } = marketClosedPayload;
    const embed = formatDiscordEmbed({ ...event, eventStatusScope: 'Event' }, links);
    expect(embed.title).toBe('Who wins the election?');
    expect(embed.description).toContain('Event closed');
  });

  it('says "Market opened" for a new market', () => {
    const embed = formatDiscordEmbed({ ...marketClosedPayload, triggerType: 'Open' }, links);
    expect(embed.description).toContain('Market opened');
  });

  it('cuts a title longer than Discord allows', () => {
    const embed = formatDiscordEmbed({ ...pricePayload, marketQuestion: 'q'.repeat(400) }, links);
    expect(embed.title).toHaveLength(256);
  });
});

describe('Discord channel', () => {
  it('POSTs one embed to the webhook URL with wait=true and no mentions', async () => {
    receiver = await startReceiver((_req, res) => json(res, 200, { id: '1' }));
    const result = await sender.send(job({ settings: hook(receiver) }));
    expect(result).toMatchObject({ outcome: 'sent', statusCode: 200 });
    const req = receiver.requests[0]!;
    expect(req.url).toBe('/api/webhooks/123/tok?wait=true');
    const body = JSON.parse(req.body);
    expect(body.embeds).toHaveLength(1);
    expect(body.embeds[0].title).toBe(pricePayload.marketQuestion);
    expect(body.allowed_mentions).toEqual({ parse: [] });
  });

  it('treats 204 as delivered', async () => {
    receiver = await startReceiver((_req, res) => {
      res.writeHead(204);
      res.end();
    });
    expect(await sender.send(job({ settings: hook(receiver) }))).toMatchObject({ outcome: 'sent', statusCode: 204 });
  });

  it.each([404, 401])('fails for good with a clear message on HTTP %i', async (status) => {
    receiver = await startReceiver((_req, res) => json(res, status, { message: 'Unknown Webhook', code: 10015 }));
    const result = await sender.send(job({ settings: hook(receiver) }));
    expect(result).toMatchObject({
      outcome: 'failed',
      statusCode: status,
      error: `Discord webhook was deleted or its token is invalid (HTTP ${status})`,
    });
  });

  it('retries after 429 with retry_after from the body, in milliseconds', async () => {
    receiver = await startReceiver((_req, res) =>
      json(res, 429, { message: 'You are being rate limited.', retry_after: 1.25, global: false }, { 'retry-after': '2' }),
    );
    const result = await sender.send(job({ settings: hook(receiver) }));
    expect(result).toMatchObject({ outcome: 'retry', statusCode: 429, retryAfterMs: 1250 });
  });

  it('falls back to the Retry-After header on a 429 without a JSON body', async () => {
    receiver = await startReceiver((_req, res) => {
      res.writeHead(429, { 'retry-after': '3' });
      res.end('slow down');
    });
    expect(await sender.send(job({ settings: hook(receiver) }))).toMatchObject({ outcome: 'retry', retryAfterMs: 3000 });
  });

  it('retries after a 5xx and fails for good after another 4xx', async () => {
    receiver = await startReceiver((req, res) => json(res, req.url?.startsWith('/five') ? 502 : 400, { message: 'x' }));
    const five = await sender.send(job({ settings: { discordWebhookUrl: `${receiver.url}/five` } }));
    const four = await sender.send(job({ settings: { discordWebhookUrl: `${receiver.url}/four` } }));
    expect(five).toMatchObject({ outcome: 'retry', statusCode: 502 });
    expect(four).toMatchObject({ outcome: 'failed', statusCode: 400 });
  });

  it('refuses a private Discord URL when private URLs are not allowed', async () => {
    receiver = await startReceiver((_req, res) => json(res, 200, {}));
    const strict = createDiscordSender({ allowPrivate: false });
    expect(await strict.send(job({ settings: hook(receiver) }))).toMatchObject({ outcome: 'failed' });
    expect(receiver.requests).toHaveLength(0);
  });
});
