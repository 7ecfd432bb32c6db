import { afterEach, describe, expect, it } from 'vitest';
import { createTelegramSender, formatTelegramMessage } from '../../src/delivery/senders/telegram.js';
import { activeRule, job, links, marketClosedPayload, pricePayload } from './support/payloads.js';
import { json, startReceiver, type Receiver } from './support/receiver.js';
import { startFakeBotApi } from '../bots/fake-bot-api.js';

const botToken = '123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawQ';
let receiver: Receiver | undefined;
afterEach(async () => {
  await receiver?.close();
  receiver = undefined;
});

function fakeBotApi(status: number, answer: unknown) {
  return startReceiver((_req, res) => json(res, status, answer));
}
const senderFor = (r: Receiver) => createTelegramSender({ botToken, apiRoot: `${r.url}/`, timeoutMs: 2000 });
const chatJob = () => job({ settings: { telegramChatId: 4242 } });

describe('Telegram message', () => {
  it('tells the move in one line, escapes user text for HTML and shows event, watchlist and time', () => {
    const { text } = formatTelegramMessage(pricePayload, links, false, { rule: activeRule, outcomeName: 'Yes' });
    expect(text.split('\n')[0]).toBe('<b>⬆ Crossed above 50 %</b>: Will A &amp; B win &lt;the&gt; &quot;race&quot;? (Yes) 47 % → 53.5 %');
    expect(text).toContain('Watchlist: <b>Elections &lt;2026&gt;</b>');
    expect(text).toContain('Event: <b>Who wins the election?</b>');
    expect(text).toContain('🕒 2025-10-01 12:00:00 UTC');
    expect(text).not.toContain('<2026>');
  });

  it('offers buttons for the market and the chart, and to pause or delete a Recurring alert that is on', () => {
    const active = { rule: activeRule };
    expect(formatTelegramMessage(pricePayload, links, false, active).reply_markup.inline_keyboard).toEqual([
      [
        { text: 'Open market', url: links.venueUrl },
        { text: 'Chart', url: links.chartUrl },
      ],
      [
        { text: 'Pause alert', callback_data: 'pause:sub-1' },
        { text: 'Delete alert', callback_data: 'delete:sub-1' },
        { text: 'Snooze 1 h', callback_data: 'snooze:sub-1:1h' },
        { text: 'Snooze 8 h', callback_data: 'snooze:sub-1:8h' },
        { text: 'Snooze 24 h', callback_data: 'snooze:sub-1:24h' },
      ],
    ]);
    expect(formatTelegramMessage(marketClosedPayload, { venueUrl: links.venueUrl }, false, active).reply_markup.inline_keyboard).toEqual([
      [{ text: 'Open market', url: links.venueUrl }],
      [
        { text: 'Pause alert', callback_data: 'pause:sub-2' },
        { text: 'Delete alert', callback_data: 'delete:sub-2' },
        { text: 'Snooze 1 h', callback_data: 'snooze:sub-2:1h' },
        { text: 'Snooze 8 h', callback_data: 'snooze:sub-2:8h' },
        { text: 'Snooze 24 h', callback_data: 'snooze:sub-2:24h' },
      ],
    ]);
    const { subscriptionId: _, ...demo } = marketClosedPayload as Record<string, unknown>;
    expect(formatTelegramMessage(demo, { venueUrl: links.venueUrl }, false, active).reply_markup.inline_keyboard).toHaveLength(1);
  });

  it('shows no Pause or Delete for a One Time alert that fired, a paused or deleted one, or an unknown rule', () => {
    for (const rule of [{ enabled: false, triggerType: 'One Time' }, { enabled: false, triggerType: 'Recurring' }, null, undefined]) {
      expect(formatTelegramMessage(pricePayload, links, false, { rule }).reply_markup.inline_keyboard).toEqual([
        [
          { text: 'Open market', url: links.venueUrl },
          { text: 'Chart', url: links.chartUrl },
        ],
      ]);
    }
  });

  it('announces a closed market', () => {
    expect(formatTelegramMessage(marketClosedPayload, links).text).toMatch(/^<b>🔒 Market closed<\/b>: Will A win\?/);
  });
});

describe('Telegram channel', () => {
  it('delivers an alert with very long venue texts, emoji and HTML characters as Telegram accepts it', async () => {
    // Telegram refuses over 4,096 characters after entity parsing, and half an emoji; the strict fake does too.
    const api = await startFakeBotApi(botToken);
    try {
      const long = (s: string) => `${'😀'.repeat(1)}${s.repeat(3000)}`;
      const payload = { ...pricePayload, marketQuestion: long('<b>A&B '), eventTitle: long('_*[x]* '), watchlistName: long('é😀') };
      const sender = createTelegramSender({ botToken, apiRoot: api.url, timeoutMs: 2000 });
      expect(await sender.send(job({ payload, settings: { telegramChatId: 4242 } }))).toMatchObject({ outcome: 'sent' });
      expect(api.refused).toEqual([]);
      const { text } = api.callsTo('sendMessage')[0]!.body;
      expect(text).toContain('&lt;b&gt;A&amp;B');
      expect(text).toContain('…');
    } finally {
      await api.close();
    }
  });

  it('calls sendMessage with HTML, no link preview and the inline keyboard', async () => {
    receiver = await fakeBotApi(200, { ok: true, result: { message_id: 1 } });
    const result = await senderFor(receiver).send(chatJob());
    expect(result).toMatchObject({ outcome: 'sent', statusCode: 200 });
    const req = receiver.requests[0]!;
    expect(req.url).toBe(`/bot${botToken}/sendMessage`);
    const body = JSON.parse(req.body);
    expect(body).toMatchObject({
      chat_id: 4242,
      parse_mode: 'HTML',
      link_preview_options: { is_disabled: true },
      reply_markup: { inline_keyboard: [[{ text: 'Open market' }, { text: 'Chart' }], [{ text: 'Pause alert' }, { text: 'Delete alert' }, { text: 'Snooze 1 h' }, { text: 'Snooze 8 h' }, { text: 'Snooze 24 h' }]] },
    });
  });

  it('marks the delivery blocked when the user blocked the bot (403)', async () => {
    receiver = await fakeBotApi(403, { ok: false, error_code: 403, description: 'Forbidden: bot was blocked by the user' });
    const result = await senderFor(receiver).send(chatJob());
    expect(result).toMatchObject({ outcome: 'blocked', statusCode: 403 });
    expect(result.error).toContain('bot was blocked by the user');
  });

  it('retries after 429 with parameters.retry_after', async () => {
    receiver = await fakeBotApi(429, {
      ok: false,
      error_code: 429,
      description: 'Too Many Requests: retry after 5',
      parameters: { retry_after: 5 },
    });
    expect(await senderFor(receiver).send(chatJob())).toMatchObject({ outcome: 'retry', statusCode: 429, retryAfterMs: 5000 });
  });

  it('fails for good when the chat does not exist (400)', async () => {
    receiver = await fakeBotApi(400, { ok: false, error_code: 400, description: 'Bad Request: chat not found' });
    const result = await senderFor(receiver).send(chatJob());
    expect(result).toMatchObject({ outcome: 'failed', statusCode: 400 });
    expect(result.error).toContain('chat not found');
  });

  it('retries after a 5xx', async () => {
    receiver = await fakeBotApi(502, { ok: false, description: 'Bad Gateway' });
    expect(await senderFor(receiver).send(chatJob())).toMatchObject({ outcome: 'retry', statusCode: 502 });
  });

  it('never puts the bot token in an error, even when the API echoes it', async () => {
    receiver = await fakeBotApi(400, { ok: false, description: `Bad Request: token ${botToken} and bot${botToken}` });
    const result = await senderFor(receiver).send(chatJob());
    expect(result.error).not.toContain(botToken);
    expect(result.error).not.toContain(botToken.split(':')[1]);
  });

  it('never puts the bot token in a network error', async () => {
    receiver = await startReceiver(() => {});
    const quick = createTelegramSender({ botToken, apiRoot: receiver.url, timeoutMs: 100 });
    const result = await quick.send(chatJob());
    expect(result).toMatchObject({ outcome: 'retry', error: 'timed out after 100 ms' });
    expect(JSON.stringify(result)).not.toContain(botToken.split(':')[1]);
  });

  it('fails with a clear message when no bot token is configured', async () => {
    const result = await createTelegramSender({}).send(chatJob());
    expect(result).toMatchObject({ outcome: 'failed', error: 'Telegram bot is not configured' });
  });

  it('fails when the channel has no chat id', async () => {
    receiver = await fakeBotApi(200, { ok: true });
    expect(await senderFor(receiver).send(job())).toMatchObject({ outcome: 'failed' });
    expect(receiver.requests).toHaveLength(0);
  });
});
