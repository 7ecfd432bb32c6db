import { describe, expect, it } from 'vitest';
import { alertLine, alertMessage, type FiredAlert } from '../../src/delivery/message/facts.js';
import { renderDiscordComponents, renderDiscordEmbed } from '../../src/delivery/senders/discord.js';
import { renderTelegramAlert } from '../../src/delivery/senders/telegram.js';
import { activeRule, links, marketClosedPayload, pricePayload } from './support/payloads.js';

// Golden messages: what a reader sees for each rule type on both platforms, kept beside the tests
// in test/delivery/golden so a change of wording shows as a diff of the message itself.

const NASTY = 'Will *A* & _B_ win [the] <race> by ~50% | `2026` (yes)?';

function price(type: string, threshold: number, previous: number | null, now: number, extra: Record<string, unknown> = {}) {
  return {
    ...pricePayload,
    subscriptionTypeConfig: { type, config: { params: { threshold_percent: threshold } } },
    detectedValue: now,
    detectionDetails: {
      detectedValue: now,
      detectedTimeMs: pricePayload.detectedAtMs,
      priceChangeTimeMs: '1759319999900',
      ...(previous === null ? {} : { previousValue: previous }),
      ...extra,
    },
  };
}

/** A window-move firing: measured from `from` (the window's lowest or highest price) to `now`. */
function move(type: string, points: number, window: string, from: number, now: number) {
  const payload = price(type, points, from, now, {
    window,
    windowStartValue: from,
    windowStartTimeMs: pricePayload.detectedAtMs - 40 * 60_000,
    movePoints: Math.round((now - from) * 1e11) / 1e9,
  });
  return { ...payload, subscriptionTypeConfig: { type, config: { params: { threshold_percent: points, window } } } };
}

const fired = (payload: Record<string, unknown>, rule: FiredAlert['rule'] = activeRule): FiredAlert => ({ payload, rule });

const CASES: Record<string, FiredAlert[]> = {
  'crossing-up': [fired(price('Crossing Up', 60, 0.57, 0.62))],
  'crossing-down': [fired(price('Crossing Down', 40, 0.43, 0.385))],
  'crossing-either-way-up': [fired(price('Crossing', 50, 0.48, 0.51))],
  'crossing-either-way-down': [fired(price('Crossing', 50, 0.51, 0.48))],
  'crossing-step': [fired(price('Crossing Step', 5, 0.57, 0.66, { levels: [0.6, 0.65] }))],
  'crossing-step-down': [fired(price('Crossing Step', 10, 0.52, 0.39, { levels: [0.5, 0.4] }))],
  'greater-than': [fired(price('Greater Than', 70, null, 0.72))],
  'less-than': [fired(price('Less Than', 10, 0.12, 0.08))],
  'moves-up-by': [fired(move('Moves Up By', 10, '1h', 0.48, 0.58))],
  'moves-down-by': [fired(move('Moves Down By', 5, '15m', 0.62, 0.555))],
  'moves-by-either-way': [fired(move('Moves By', 1, '24h', 0.3, 0.29))],
  'large-trade': [
    fired({
      ...price('Large Trade', 0, null, 0.62, { tradePrice: 0.62, tradeSize: 40_967.74, tradeSide: 'BUY', tradeUsd: 25_400, transactionHash: '0xabc' }),
      subscriptionTypeConfig: { type: 'Large Trade', config: { params: { min_usd: 25_000 } } },
    }),
  ],
  'large-trade-sold': [
    fired({
      ...price('Large Trade', 0, null, 0.415, { tradePrice: 0.415, tradeSize: 2408.67, tradeSide: 'SELL', tradeUsd: 999.6 }),
      subscriptionTypeConfig: { type: 'Large Trade', config: { params: { min_usd: 500, side: 'SELL' } } },
    }),
  ],
  'volume-spike': [
    fired({
      ...price('Volume Spike', 0, null, 0.62, { hourVolumeUsd: 48_000, baselineHourlyUsd: 15_000, baselineSource: 'catalog', volumeMultiple: 3.2 }),
      subscriptionTypeConfig: { type: 'Volume Spike', config: { params: { multiple: 2 } } },
    }),
  ],
  'trade-rules-one-trade': [
    fired({
      ...price('Large Trade', 0, null, 0.62, { tradePrice: 0.62, tradeSize: 40_967.74, tradeSide: 'BUY', tradeUsd: 25_400 }),
      subscriptionTypeConfig: { type: 'Large Trade', config: { params: { min_usd: 25_000 } } },
      subscriptionId: 'sub-trade',
    }),
    fired({
      ...price('Volume Spike', 0, null, 0.62, { hourVolumeUsd: 48_000, baselineHourlyUsd: 15_000, baselineSource: 'feed', volumeMultiple: 3.2 }),
      subscriptionTypeConfig: { type: 'Volume Spike', config: { params: { multiple: 3 } } },
      subscriptionId: 'sub-volume',
    }),
  ],
  'new-market': [fired({ ...marketClosedPayload, triggerType: 'Open', outcomePrices: '["0.5","0.5"]' })],
  'market-closed': [fired(marketClosedPayload)],
  'event-closed': [fired({ ...marketClosedPayload, eventStatusScope: 'Event', marketId: undefined, marketQuestion: undefined, outcomes: undefined, outcomePrices: undefined })],
  'one-time-fired': [fired({ ...price('Crossing Up', 60, 0.57, 0.62), triggerType: 'One Time' }, { enabled: false, triggerType: 'One Time' })],
  'markdown-and-html-in-titles': [
    fired({ ...price('Crossing Up', 60, 0.57, 0.62), marketQuestion: NASTY, eventTitle: `# ${NASTY}`, watchlistName: '> <b>mine</b> & *yours*' }),
  ],
  'three-rules-one-move': [
    fired({ ...price('Crossing Up', 60, 0.57, 0.62), subscriptionId: 'sub-up' }),
    fired({ ...price('Greater Than', 55, 0.57, 0.62), subscriptionId: 'sub-gt' }),
    fired({ ...price('Crossing Step', 5, 0.57, 0.62, { levels: [0.6] }), subscriptionId: 'sub-step' }, { enabled: false, triggerType: 'One Time' }),
  ],
};

const messageOf = (cases: FiredAlert[]) => alertMessage({ fired: cases, links, outcomeName: 'Yes' });

/** What Telegram counts against its 4096 characters: the text after its HTML entities are parsed. */
function telegramVisibleLength(html: string): number {
  const text = html.replace(/<[^>]+>/g, '').replace(/&(lt|gt|amp|quot);/g, '_');
  return [...text].length;
}

describe('alert messages (golden)', () => {
  for (const [name, alerts] of Object.entries(CASES)) {
    it(`${name} on Telegram`, async () => {
      const message = renderTelegramAlert(messageOf(alerts));
      expect(telegramVisibleLength(message.text)).toBeLessThanOrEqual(4096);
      const golden = `${message.text}\n\n--- buttons ---\n${JSON.stringify(message.reply_markup.inline_keyboard, null, 2)}\n`;
      await expect(golden).toMatchFileSnapshot(`./golden/${name}.telegram.txt`);
    });

    it(`${name} on Discord`, async () => {
      const m = messageOf(alerts);
      const embed = renderDiscordEmbed(m);
      const components = renderDiscordComponents(m, true);
      expect(embed.title.length).toBeLessThanOrEqual(256);
      expect(embed.description.length).toBeLessThanOrEqual(4096);
      expect(components.length).toBeLessThanOrEqual(5);
      await expect(`${JSON.stringify({ embed, components }, null, 2)}\n`).toMatchFileSnapshot(`./golden/${name}.discord.json`);
    });
  }
});

describe('alert messages', () => {
  it('escapes every HTML special character for Telegram and leaves no raw tag from the venue', () => {
    const { text } = renderTelegramAlert(messageOf(CASES['markdown-and-html-in-titles']!));
    expect(text).toContain('Will *A* &amp; _B_ win [the] &lt;race&gt; by ~50% | `2026` (yes)?');
    expect(text).not.toContain('<race>');
    expect(text).not.toContain('<b>mine</b>');
  });

  it('escapes Discord markdown in the title, the fields and the description', () => {
    const embed = renderDiscordEmbed(messageOf(CASES['markdown-and-html-in-titles']!));
    expect(embed.title).toBe('Will \\*A\\* & \\_B\\_ win \\[the\\] <race> by \\~50% \\| \\`2026\\` \\(yes\\)?');
    expect(embed.fields.find((f) => f.name === 'Event')?.value.startsWith('\\# ')).toBe(true);
    expect(embed.fields.find((f) => f.name === 'Watchlist')?.value).toBe('\\> <b>mine</b> & \\*yours\\*');
  });

  it('keeps the longest venue texts within both platforms\' limits', () => {
    const long = 'é_'.repeat(3000);
    const alerts = ['a', 'b', 'c', 'd'].map((id) =>
      fired({ ...price('Crossing Up', 60, 0.57, 0.62), subscriptionId: id, marketQuestion: long, eventTitle: long, watchlistName: long }),
    );
    const m = alertMessage({ fired: alerts, links, outcomeName: long });
    expect(telegramVisibleLength(renderTelegramAlert(m).text)).toBeLessThanOrEqual(4096);
    const embed = renderDiscordEmbed(m);
    const total = embed.title.length + embed.description.length + embed.footer.text.length + embed.fields.reduce((n, f) => n + f.name.length + f.value.length, 0);
    expect(total).toBeLessThanOrEqual(6000);
    expect(renderDiscordComponents(m, true)).toHaveLength(5);
  });

  it("words a past firing in one line with the alert's own subject, move and headline (chat's /alerts <id>)", () => {
    const up = price('Crossing Up', 60, 0.57, 0.62);
    expect(alertLine(up)).toBe(`${up.marketQuestion} 57 % → 62 % · ⬆ Crossed above 60 %`);
    expect(alertLine(price('Greater Than', 70, null, 0.72))).toBe(`${up.marketQuestion} 72 % · ⬆ Above 70 %`);
    expect(alertLine(marketClosedPayload)).toBe(`${marketClosedPayload.marketQuestion} · 🔒 Market closed`);
    const eventClosed = { ...marketClosedPayload, eventStatusScope: 'Event', marketQuestion: undefined };
    expect(alertLine(eventClosed)).toBe(`${marketClosedPayload.eventTitle} · 🔒 Event closed`);
    const trade = {
      ...price('Large Trade', 0, null, 0.62, { tradePrice: 0.62, tradeSize: 40_967.74, tradeSide: 'BUY', tradeUsd: 25_400 }),
      subscriptionTypeConfig: { type: 'Large Trade', config: { params: { min_usd: 25_000 } } },
    };
    expect(alertLine(trade)).toBe(`${up.marketQuestion} 62 % · 💰 $25,400 bought at 62 %`);
    const volume = {
      ...price('Volume Spike', 0, null, 0.62, { hourVolumeUsd: 48_000.5, baselineHourlyUsd: 15_000, volumeMultiple: 3.2 }),
      subscriptionTypeConfig: { type: 'Volume Spike', config: { params: { multiple: 2 } } },
    };
    expect(alertLine(volume)).toBe(`${up.marketQuestion} 62 % · 📈 Volume 3.2× the hourly average ($48,000.50 in the last hour)`);
    // The same headline the chat alert shows for that firing.
    expect(alertLine(up)).toContain(alertMessage({ fired: [fired(up)], links }).rules[0]!.headline);
  });
});
