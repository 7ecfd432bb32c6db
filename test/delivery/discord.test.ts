import { afterEach, describe, expect, it } from 'vitest';
import { alertMessage } from '../../src/delivery/message/facts.js';
import { createDiscordSender, formatDiscordEmbed, renderDiscordComponents } from '../../src/delivery/senders/discord.js';
import { activeRule, job, links, marketClosedPayload, pricePayload } from './support/payloads.js';
import { json, startReceiver, type Receiver } from './support/receiver.js';
import { startFakeDiscordApi } from '../bots/fake-discord-api.js';

const sender = createDiscordSender({ allowPrivate: true, timeoutMs: 2000 });
let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

const hook = (r: Receiver) => ({ discordWebhookUrl: `${r.url}/api/webhooks/123/tok` });

const alert = (payload: Record<string, unknown>, l: { venueUrl: string; chartUrl?: string } = links) => alertMessage({ fired: [{ payload, rule: activeRule }], links: l, outcomeName: 'Yes' });

describe('Discord embed', () => {
  it('shows a price alert: question, venue link, the rule, the move, event, watchlist, time, chart', () => {
    const embed = formatDiscordEmbed(pricePayload, links, false, { rule: activeRule, outcomeName: 'Yes' });
    expect(embed.title).toBe('Will A & B win <the> "race"?');
    expect(embed.url).toBe(links.venueUrl);
    expect(embed.description).toBe('**⬆ Crossed above 50 %**\nYes 47 % → 53.5 %');
    const fields = Object.fromEntries(embed.fields.map((f) => [f.name, f.value]));
    expect(fields).toMatchObject({
      Event: 'Who wins the election?',
      Watchlist: 'Elections <2026>',
      Time: '2025-10-01 12:00:00 UTC',
    });
    expect(fields['Chart']).toContain(links.chartUrl);
    expect(embed.timestamp).toBe(pricePayload.detectedAt);
  });

  it('shows a market close with its outcomes', () => {
    const embed = formatDiscordEmbed(marketClosedPayload, { venueUrl: links.venueUrl });
    expect(embed.title).toBe('Will A win?');
    expect(embed.description).toContain('Market closed');
    expect(embed.fields.find((f) => f.name === 'Outcomes')?.value).toBe('Yes 99.5 % · No 0.5 %');
    expect(embed.fields.some((f) => f.name === 'Chart')).toBe(false);
  });

  it('titles an event close with the event and says "Event closed"', () => {
    const { marketId: _m, marketQuestion: _q, outcomes: _o, outcomePrices: _p, ...event } = marketClosedPayload;
    const embed = formatDiscordEmbed({ ...event, eventStatusScope: 'Event' }, links);
    expect(embed.title).toBe('Who wins the election?');
    expect(embed.description).toContain('Event closed');
  });

  it('says "New market" for a new market', () => {
    const embed = formatDiscordEmbed({ ...marketClosedPayload, triggerType: 'Open' }, links);
    expect(embed.description).toContain('New market');
  });

  it('cuts a title longer than Discord allows, even when escaping makes it longer', () => {
    expect(formatDiscordEmbed({ ...pricePayload, marketQuestion: 'q'.repeat(400) }, links).title).toHaveLength(256);
    const escaped = formatDiscordEmbed({ ...pricePayload, marketQuestion: '_'.repeat(400) }, links).title;
    expect(escaped.length).toBeLessThanOrEqual(256);
    expect(escaped).toMatch(/^(\\_)+…$/);
  });
});

describe('Discord buttons', () => {
  it('links to the venue page and the chart, and adds Pause and Delete only for our own webhooks', () => {
    const linkRow = {
      type: 1,
      components: [
        { type: 2, style: 5, label: 'Open market', url: links.venueUrl },
        { type: 2, style: 5, label: 'Chart', url: links.chartUrl },
      ],
    };
    expect(renderDiscordComponents(alert(pricePayload), false)).toEqual([linkRow]);
    expect(renderDiscordComponents(alert(pricePayload), true)).toEqual([
      linkRow,
      {
        type: 1,
        components: [
          { type: 2, style: 2, label: 'Pause alert', custom_id: 'pause:sub-1' },
          { type: 2, style: 4, label: 'Delete alert', custom_id: 'delete:sub-1' },
          { type: 2, style: 2, label: 'Snooze 1 h', custom_id: 'snooze:sub-1:1h' },
          { type: 2, style: 2, label: 'Snooze 8 h', custom_id: 'snooze:sub-1:8h' },
          { type: 2, style: 2, label: 'Snooze 24 h', custom_id: 'snooze:sub-1:24h' },
        ],
      },
    ]);
    expect(renderDiscordComponents(alert(pricePayload, { venueUrl: links.venueUrl }), false)[0]!.components).toHaveLength(1);
  });

  it('shows no Pause or Delete for a One Time alert that fired', () => {
    const fired = alertMessage({ fired: [{ payload: pricePayload, rule: { enabled: false, triggerType: 'One Time' } }], links });
    expect(renderDiscordComponents(fired, true)).toHaveLength(1);
  });

  /** A webhook endpoint that answers the GET lookup with `lookup` and every POST with 200. */
  const ownedBy = (lookup: (res: import('node:http').ServerResponse) => void) =>
    startReceiver((req, res) => (req.method === 'GET' ? lookup(res) : json(res, 200, { id: '1' })));
  const posted = (r: Receiver) => r.requests.filter((q) => q.method === 'POST').map((q) => JSON.parse(q.body));
  const customIds = (body: { components: { components: { custom_id?: string }[] }[] }) =>
    body.components.flatMap((row) => row.components.map((c) => c.custom_id)).filter(Boolean);

  it('asks Discord once per webhook who owns it, and sends Pause and Delete when it is our application', async () => {
    receiver = await ownedBy((res) => json(res, 200, { id: '123', type: 3, application_id: 'app-1', token: 'tok' }));
    const ours = createDiscordSender({ allowPrivate: true, timeoutMs: 2000, applicationId: 'app-1' });
    expect(await ours.send(job({ settings: hook(receiver) }))).toMatchObject({ outcome: 'sent' });
    expect(await ours.send(job({ settings: hook(receiver) }))).toMatchObject({ outcome: 'sent' });
    const lookups = receiver.requests.filter((q) => q.method === 'GET');
    expect(lookups.map((q) => q.url)).toEqual(['/api/webhooks/123/tok']);
    for (const body of posted(receiver)) expect(customIds(body)).toEqual(['pause:sub-1', 'delete:sub-1', 'snooze:sub-1:1h', 'snooze:sub-1:8h', 'snooze:sub-1:24h']);
  });

  it('sends link buttons only to a webhook of another application or of a user, and without an application id asks nothing', async () => {
    receiver = await ownedBy((res) => json(res, 200, { id: '123', type: 1, application_id: null, token: 'tok' }));
    const ours = createDiscordSender({ allowPrivate: true, timeoutMs: 2000, applicationId: 'app-1' });
    await ours.send(job({ settings: hook(receiver) }));
    expect(customIds(posted(receiver)[0])).toEqual([]);
    expect(posted(receiver)[0].components[0].components.map((b: { label: string }) => b.label)).toEqual(['Open market', 'Chart']);

    await receiver.close();
    receiver = await ownedBy((res) => json(res, 200, { id: '123', application_id: 'app-1' }));
    await sender.send(job({ settings: hook(receiver) }));
    expect(receiver.requests.map((q) => q.method)).toEqual(['POST']);
    expect(customIds(posted(receiver)[0])).toEqual([]);
  });

  it('still delivers the alert, without Pause and Delete, when the lookup fails, and asks again a minute later', async () => {
    receiver = await ownedBy((res) => json(res, 500, { message: 'oops' }));
    let clock = 0;
    const ours = createDiscordSender({ allowPrivate: true, timeoutMs: 2000, applicationId: 'app-1', now: () => clock });
    expect(await ours.send(job({ settings: hook(receiver) }))).toMatchObject({ outcome: 'sent', statusCode: 200 });
    clock += 59_000;
    expect(await ours.send(job({ settings: hook(receiver) }))).toMatchObject({ outcome: 'sent' });
    expect(receiver.requests.map((q) => q.method)).toEqual(['GET', 'POST', 'POST']);
    clock += 2_000;
    expect(await ours.send(job({ settings: hook(receiver) }))).toMatchObject({ outcome: 'sent' });
    expect(receiver.requests.map((q) => q.method)).toEqual(['GET', 'POST', 'POST', 'GET', 'POST']);
    for (const body of posted(receiver)) expect(customIds(body)).toEqual([]);

    await receiver.close();
    receiver = await ownedBy((res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"applicat'); // cut short: not JSON
    });
    expect(await ours.send(job({ settings: hook(receiver) }))).toMatchObject({ outcome: 'sent' });
    clock += 61_000;
    expect(await ours.send(job({ settings: hook(receiver) }))).toMatchObject({ outcome: 'sent' });
    expect(receiver.requests.map((q) => q.method)).toEqual(['GET', 'POST', 'GET', 'POST']);
    expect(customIds(posted(receiver)[0])).toEqual([]);
  });

  it('remembers the answer per webhook URL: the same id at another address is asked about again', async () => {
    receiver = await ownedBy((res) => json(res, 200, { id: '123', application_id: 'app-1' }));
    const other = await ownedBy((res) => json(res, 200, { id: '123', application_id: 'someone-else' }));
    try {
      const ours = createDiscordSender({ allowPrivate: true, timeoutMs: 2000, applicationId: 'app-1' });
      await ours.send(job({ settings: hook(receiver) }));
      await ours.send(job({ settings: hook(other) }));
      expect(customIds(posted(receiver)[0])).toEqual(['pause:sub-1', 'delete:sub-1', 'snooze:sub-1:1h', 'snooze:sub-1:8h', 'snooze:sub-1:24h']);
      expect(other.requests.map((q) => q.method)).toEqual(['GET', 'POST']);
      expect(customIds(posted(other)[0])).toEqual([]);
    } finally {
      await other.close();
    }
  });

  it('still delivers when the lookup times out', async () => {
    receiver = await ownedBy(() => {}); // the GET is never answered
    const ours = createDiscordSender({ allowPrivate: true, timeoutMs: 300, applicationId: 'app-1' });
    expect(await ours.send(job({ settings: hook(receiver) }))).toMatchObject({ outcome: 'sent' });
    expect(customIds(posted(receiver)[0])).toEqual([]);
  });
});

describe('Discord channel', () => {
  it('delivers an alert whose long texts hold emoji exactly where the embed limits cut them, as Discord accepts it', async () => {
    // A cut between the halves of an emoji is not valid UTF-8: Discord refuses the whole body.
    const api = await startFakeDiscordApi('app-1');
    try {
      const webhook = api.addForeignWebhook('c-1');
      const payload = { ...pricePayload, marketQuestion: `${'a'.repeat(254)}😀 and more`, eventTitle: `${'b'.repeat(1022)}😀 and more` };
      expect(await sender.send(job({ payload, settings: { discordWebhookUrl: webhook } }))).toMatchObject({ outcome: 'sent' });
      expect(api.refused).toEqual([]);
    } finally {
      await api.close();
    }
  });

  it('POSTs one embed to the webhook URL with wait=true and no mentions', async () => {
    receiver = await startReceiver((_req, res) => json(res, 200, { id: '1' }));
    const result = await sender.send(job({ settings: hook(receiver) }));
    expect(result).toMatchObject({ outcome: 'sent', statusCode: 200 });
    const req = receiver.requests[0]!;
    expect(req.url).toBe('/api/webhooks/123/tok?wait=true&with_components=true');
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

describe('Discord direct message (the bot posts itself)', () => {
  const dmSender = (r: Receiver, withToken = true) =>
    createDiscordSender({ allowPrivate: false, timeoutMs: 2000, apiUrl: `${r.url}/api`, ...(withToken ? { botToken: 'bot-tok' } : {}) });
  const dm = { discordChannelId: '4455' };

  it('POSTs the embed and Pause and Delete to the channel\'s messages with the bot token, even with private URLs refused', async () => {
    receiver = await startReceiver((_req, res) => json(res, 200, { id: '1' }));
    expect(await dmSender(receiver).send(job({ settings: dm }))).toMatchObject({ outcome: 'sent', statusCode: 200 });
    const req = receiver.requests[0]!;
    expect(req.url).toBe('/api/v10/channels/4455/messages');
    expect(req.headers.authorization).toBe('Bot bot-tok');
    const body = JSON.parse(req.body);
    expect(body.username).toBeUndefined();
    expect(body.embeds[0].title).toBe(pricePayload.marketQuestion);
    const ids = body.components.flatMap((row: { components: { custom_id?: string }[] }) => row.components.map((b) => b.custom_id)).filter(Boolean);
    expect(ids.slice(0, 2)).toEqual(['pause:sub-1', 'delete:sub-1']);
  });

  it.each([
    [403, 'Discord refused the direct message: the user blocked the bot or takes no direct messages (HTTP 403)'],
    [404, 'The Discord direct message channel no longer exists (HTTP 404)'],
  ])('HTTP %i fails for good and names the channel gone', async (status, error) => {
    receiver = await startReceiver((_req, res) => json(res, status, { message: 'Cannot send messages to this user', code: 50007 }));
    expect(await dmSender(receiver).send(job({ settings: dm }))).toMatchObject({ outcome: 'failed', statusCode: status, error, endpointGone: error });
  });

  it('a refused bot token (401) fails without calling the channel gone: it is the worker\'s setting, not the DM', async () => {
    receiver = await startReceiver((_req, res) => json(res, 401, { message: '401: Unauthorized', code: 0 }));
    const result = await dmSender(receiver).send(job({ settings: dm }));
    expect(result).toMatchObject({ outcome: 'failed', statusCode: 401 });
    expect(result.endpointGone).toBeUndefined();
  });

  it('retries after 429 with retry_after from the body', async () => {
    receiver = await startReceiver((_req, res) => json(res, 429, { message: 'You are being rate limited.', retry_after: 0.5, global: false }));
    expect(await dmSender(receiver).send(job({ settings: dm }))).toMatchObject({ outcome: 'retry', statusCode: 429, retryAfterMs: 500 });
  });

  it('without DISCORD_TOKEN it fails with that reason and calls nothing', async () => {
    receiver = await startReceiver((_req, res) => json(res, 200, {}));
    expect(await dmSender(receiver, false).send(job({ settings: dm }))).toMatchObject({ outcome: 'failed', error: expect.stringContaining('DISCORD_TOKEN') });
    expect(receiver.requests).toEqual([]);
  });
});
