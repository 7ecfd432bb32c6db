import { describe, expect, it } from 'vitest';
import { alertLine, alertMessage, headlineOf, type FiredAlert } from '../../src/delivery/message/facts.js';
import { renderDiscordComponents, renderDiscordEmbed } from '../../src/delivery/senders/discord.js';
import { renderTelegramAlert } from '../../src/delivery/senders/telegram.js';
import { EventStatusNotification } from '../../src/http/webhook-payloads.js';
import { activeRule, links, marketClosedPayload } from './support/payloads.js';

// Golden messages of our Resolution and Closing Soon notices (test/delivery/golden), beside the
// spec's types in messages.test.ts.

const resolution = (resolutionStatus: string, previousResolutionStatus: string, outcome?: string, prices = '["0.97","0.03"]') => ({
  ...marketClosedPayload,
  triggerType: 'Resolution',
  outcomePrices: prices,
  subscriptionTypeConfig: { type: 'Resolution', config: { params: {} } },
  detectionDetails: { resolutionStatus, previousResolutionStatus, ...(outcome ? { outcome } : {}) },
});

const closingSoon = (hoursBefore: number, endDate: string) => ({
  ...marketClosedPayload,
  triggerType: 'Closing Soon',
  outcomePrices: '["0.62","0.38"]',
  subscriptionTypeConfig: { type: 'Closing Soon', config: { params: { hours_before: hoursBefore } } },
  detectionDetails: { endDate, hoursBefore },
});

const fired = (payload: Record<string, unknown>): FiredAlert => ({ payload, rule: activeRule });

// detectedAt of the payloads: 2025-10-01 12:00 UTC.
const CASES: Record<string, Record<string, unknown>> = {
  'resolution-proposed': resolution('proposed', '', 'Yes'),
  'resolution-disputed': resolution('disputed', 'proposed'),
  'resolution-resolved': resolution('resolved', 'disputed', 'No', '["0","1"]'),
  'closing-soon-24h': closingSoon(24, '2025-10-02T12:00:00.000Z'),
};

describe('Resolution and Closing Soon messages (golden)', () => {
  for (const [name, payload] of Object.entries(CASES)) {
    it(`${name} on Telegram and Discord`, async () => {
      expect(EventStatusNotification.safeParse(payload).success).toBe(true);
      const m = alertMessage({ fired: [fired(payload)], links, outcomeName: 'Yes' });
      const telegram = renderTelegramAlert(m);
      await expect(`${telegram.text}\n\n--- buttons ---\n${JSON.stringify(telegram.reply_markup.inline_keyboard, null, 2)}\n`).toMatchFileSnapshot(
        `./golden/${name}.telegram.txt`,
      );
      const discord = { embed: renderDiscordEmbed(m), components: renderDiscordComponents(m, true) };
      await expect(`${JSON.stringify(discord, null, 2)}\n`).toMatchFileSnapshot(`./golden/${name}.discord.json`);
    });
  }
});

describe('Resolution and Closing Soon headlines', () => {
  it('say the status and its outcome when the catalog has one', () => {
    expect(headlineOf(resolution('proposed', '', 'Yes')).headline).toBe('⚖ Result proposed: Yes');
    expect(headlineOf(resolution('proposed', '')).headline).toBe('⚖ Result proposed');
    expect(headlineOf(resolution('disputed', 'proposed')).headline).toBe('⚖ Result disputed');
    expect(headlineOf(resolution('resolved', 'proposed', 'No')).headline).toBe('⚖ Resolved: No');
    expect(headlineOf(resolution('', 'disputed')).headline).toBe('⚖ Proposal withdrawn');
    expect(alertLine(resolution('resolved', 'proposed', 'No'))).toBe('Will A win? · ⚖ Resolved: No');
  });

  it('say how long is left and when, in UTC', () => {
    expect(headlineOf(closingSoon(24, '2025-10-02T12:00:00.000Z')).headline).toBe('⏳ Closes in 24 h: 2025-10-02 12:00 UTC');
    expect(headlineOf(closingSoon(6, '2025-10-01T15:10:00.000Z')).headline).toBe('⏳ Closes in 3 h: 2025-10-01 15:10 UTC');
    expect(headlineOf(closingSoon(1, '2025-10-01T12:40:00.000Z')).headline).toBe('⏳ Closes in 40 min: 2025-10-01 12:40 UTC');
    expect(headlineOf({ ...closingSoon(1, ''), detectionDetails: {} }).headline).toBe('⏳ Closes soon');
  });
});
