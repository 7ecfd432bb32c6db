import { describe, expect, it } from 'vitest';
import { formatDiscordSummary } from '../../src/delivery/senders/discord.js';
import { formatTelegramSummary } from '../../src/delivery/senders/telegram.js';
import type { BatchItem } from '../../src/delivery/senders/types.js';
import { checkDiscordMessage } from '../bots/platform-rules/discord.js';
import { checkTelegramCall } from '../bots/platform-rules/telegram.js';
import { marketClosedPayload, pricePayload } from './support/payloads.js';

// The summary of a batched send (quiet hours, digests, bursts) as each platform shows it: grouped
// by event, one line per rule and market with its first and last price and the number of firings,
// and within each platform's limits however many notifications the batch holds.

const firing = (n: number, over: Record<string, unknown> = {}): BatchItem => ({
  notificationId: `ntf_${n}`,
  payload: { ...pricePayload, ...over },
  rule: { enabled: true, triggerType: 'Recurring' },
});

describe('batched send summaries', () => {
  const items: BatchItem[] = [
    firing(1, { detectedValue: 0.52 }),
    firing(2, { detectedValue: 0.61 }),
    firing(3, { marketId: 'mk-2', marketQuestion: 'Will C win?', detectedValue: 0.7 }),
    firing(4, { eventId: 'ev-2', eventTitle: 'Rain in Paris', marketId: 'mk-3', marketQuestion: 'Rain on Monday?', detectedValue: 0.2 }),
    { notificationId: 'ntf_5', payload: { ...marketClosedPayload }, rule: null },
    // The same notification through a second channel to the same chat counts once.
    firing(2, { detectedValue: 0.61 }),
  ];

  it('Telegram: grouped by event, first and last price, how many times, escaped', () => {
    const message = formatTelegramSummary({ kind: 'hourly', items });
    expect(message.text).toBe(
      [
        '<b>🗞 Hourly digest: 5 alerts</b>',
        '',
        '<b>Who wins the election?</b>',
        '• Will A &amp; B win &lt;the&gt; &quot;race&quot;? · ⬆ Crossed above 50 % · 52 % → 61 % · 2 times',
        '• Will C win? · ⬆ Crossed above 50 % · 70 %',
        `• ${marketClosedLine()}`,
        '',
        '<b>Rain in Paris</b>',
        '• Rain on Monday? · ⬆ Crossed above 50 % · 20 %',
      ].join('\n'),
    );
    expect(message.reply_markup.inline_keyboard).toEqual([]);
    expect(checkTelegramCall('sendMessage', { chat_id: 1, parse_mode: 'HTML', ...message })).toBeUndefined();
  });

  it('Discord: the same facts in one embed, without buttons', () => {
    const embed = formatDiscordSummary({ kind: 'quiet', items });
    expect(embed.title).toBe('🌙 While your quiet hours were on: 5 alerts');
    expect(embed.description).toContain('• Will A & B win <the> "race"? · ⬆ Crossed above 50 % · 52 % → 61 % · 2 times');
    expect(embed.description).toContain('\n**Rain in Paris**\n• Rain on Monday?');
    expect(checkDiscordMessage({ embeds: [embed], allowed_mentions: { parse: [] } })).toBeUndefined();
  });

  it('stays within both platforms\' limits for a batch of 500 markets, saying how many lines were left out', () => {
    const many = Array.from({ length: 500 }, (_, i) =>
      firing(i, { eventId: `ev-${i % 7}`, eventTitle: `Event ${i % 7} ${'x'.repeat(150)}`, marketId: `mk-${i}`, marketQuestion: `Market ${i} ${'q'.repeat(250)}` }),
    );
    const telegram = formatTelegramSummary({ kind: 'burst', items: many });
    expect(telegram.text.startsWith('<b>⚡ 500 more alerts in a burst</b>')).toBe(true);
    expect(telegram.text).toMatch(/\n• … and \d+ more$/);
    expect(checkTelegramCall('sendMessage', { chat_id: 1, parse_mode: 'HTML', ...telegram })).toBeUndefined();
    const embed = formatDiscordSummary({ kind: 'daily', items: many });
    expect(embed.description).toMatch(/\n• … and \d+ more$/);
    expect(checkDiscordMessage({ embeds: [embed], allowed_mentions: { parse: [] } })).toBeUndefined();
  });
});

function marketClosedLine(): string {
  const p = marketClosedPayload as Record<string, unknown>;
  return `${String(p.marketQuestion ?? p.eventTitle).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;')} · 🔒 Market closed`;
}
