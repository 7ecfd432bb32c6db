import { encodeButton } from '../../domain/button-actions.js';
import { DELIVERY_MODES, rearmApplies, type DeliveryMode } from '../../domain/enums.js';
import type { ServiceContext } from '../../services/context.js';
import {
  changePreferences,
  getAlertSettings,
  MAX_REARM_POINTS,
  unsnoozeSubscription,
  type AlertSettings,
  type PreferencesView,
} from '../../services/subscriptions/index.js';
import { alertLine } from './alert-lines.js';
import { localMinute } from './local-time.js';
import { alertIdParam, numberOf, textOf } from './params.js';
import type { BotButton, BotReply, Command } from './types.js';

// Noise control of one alert in chat: how its firings are delivered (at once or in a digest), its
// re-arm band, and ending a snooze. Each answer is the alert's settings card with buttons that
// change them, so a person taps instead of typing field names.

const DELIVERY_LABELS: Record<DeliveryMode, string> = { instant: 'At once', hourly: 'Hourly digest', daily: 'Daily digest' };

/** How a mode delivers, in the account's zone: daily digests go out at `digestHour` there. */
function deliveryModeWords(mode: DeliveryMode, timezone: string, digestHour: number): string {
  switch (mode) {
    case 'instant':
      return 'each firing is sent at once';
    case 'hourly':
      return 'one digest an hour, at the top of the hour';
    case 'daily':
      return `one digest a day, at ${String(digestHour).padStart(2, '0')}:00 ${timezone}`;
  }
}

const points = (n: number): string => `${n} ${n === 1 ? 'point' : 'points'}`;

/**
 * What differs from the defaults, for a line of `/alerts`: `snoozed until … · hourly digest ·
 * re-arm band 2 points`. Empty when all is default, so the list reads as it always did.
 */
export function noiseSuffix(p: PreferencesView, timezone: string): string {
  const parts = [
    p.snoozedUntil ? `snoozed until ${localMinute(p.snoozedUntil, timezone)}` : undefined,
    p.delivery !== 'instant' ? `${p.delivery} digest` : undefined,
    p.rearmPoints > 0 ? `re-arm band ${points(p.rearmPoints)}` : undefined,
  ].filter((x): x is string => x !== undefined);
  return parts.length > 0 ? ` · ${parts.join(' · ')}` : '';
}

/** The settings of one alert, a line each. */
export function settingsLines(s: AlertSettings, timezone: string, digestHour: number): string[] {
  const p = s.preferences;
  return [
    `Delivery: ${deliveryModeWords(p.delivery, timezone, digestHour)}`,
    ...(rearmApplies(s.subscription.rule.type, s.subscription.triggerType)
      ? [
          p.rearmPoints > 0
            ? `Re-arm band: ${points(p.rearmPoints)} (after firing, the price must go back ${points(p.rearmPoints)} past the threshold before it can fire again)`
            : 'Re-arm band: none (it may fire on every crossing)',
        ]
      : []),
    p.snoozedUntil ? `Snoozed until ${localMinute(p.snoozedUntil, timezone)}: its firings go to your inbox only` : 'Not snoozed',
  ];
}

/** Re-arm bands offered as buttons; any other (0 to MAX_REARM_POINTS) is typed with /rearm. */
const REARM_PRESETS = [0, 1, 2, 5] as const;
const SNOOZE_PRESETS = [
  { span: '1h', label: 'Snooze 1 h' },
  { span: '8h', label: 'Snooze 8 h' },
  { span: '24h', label: 'Snooze 24 h' },
] as const;

const mark = (label: string, current: boolean) => (current ? `✓ ${label}` : label);

/** The rows under an alert's settings: delivery mode, re-arm band (where it applies), snooze or unsnooze. */
export function settingsButtons(s: AlertSettings): BotButton[][] {
  const id = s.subscription.subscriptionId;
  const p = s.preferences;
  const rows: { label: string; action: string | undefined }[][] = [
    DELIVERY_MODES.map((mode) => ({ label: mark(DELIVERY_LABELS[mode], p.delivery === mode), action: encodeButton('digest', id, mode) })),
  ];
  if (rearmApplies(s.subscription.rule.type, s.subscription.triggerType)) {
    rows.push(
      REARM_PRESETS.map((n) => ({
        label: mark(n === 0 ? 'No re-arm band' : `Re-arm ${n} pt${n === 1 ? '' : 's'}`, p.rearmPoints === n),
        action: encodeButton('rearm', id, n),
      })),
    );
  }
  rows.push(
    p.snoozedUntil
      ? [{ label: '🔔 Unsnooze', action: encodeButton('unsnooze', id) }]
      : SNOOZE_PRESETS.map(({ span, label }) => ({ label, action: encodeButton('snooze', id, span) })),
  );
  // An id too long for a button's data leaves no buttons rather than broken ones.
  return rows.every((row) => row.every((b) => b.action !== undefined)) ? (rows as BotButton[][]) : [];
}

/** The card a change answers with: what changed, the alert, its settings now, and the buttons. */
async function settingsCard(ctx: ServiceContext, subscriptionId: string, done: string | ((s: AlertSettings) => string)): Promise<BotReply> {
  const settings = await getAlertSettings({ ctx, input: { subscriptionId } });
  const lines = settingsLines(settings, settings.timezone, ctx.config.DIGEST_HOUR);
  const head = typeof done === 'string' ? done : done(settings);
  return { text: [head, alertLine(settings.subscription), ...lines].join('\n'), buttons: settingsButtons(settings) };
}

export const digestCommand: Command = {
  name: 'digest',
  params: [
    alertIdParam('The alert'),
    {
      kind: 'choice',
      name: 'mode',
      help: 'Send each firing at once, or collect them into one message an hour or a day',
      what: 'delivery mode',
      choices: DELIVERY_MODES.map((mode) => ({ word: mode, label: DELIVERY_LABELS[mode] })),
    },
  ],
  summary: 'Send an alert at once (instant) or as one hourly or daily digest',
  async run({ ctx, values }) {
    const subscriptionId = textOf(values, 'id')!;
    const delivery = textOf(values, 'mode') as DeliveryMode;
    await changePreferences({ ctx, input: { subscriptionId, body: { delivery } } });
    const done =
      delivery === 'instant'
        ? 'At once ✓: each firing is sent as it happens.'
        : `${DELIVERY_LABELS[delivery]} ✓: firings are collected and sent as one message per chat or webhook. Your inbox still gets each one at once.`;
    return settingsCard(ctx, subscriptionId, done);
  },
};

export const rearmCommand: Command = {
  name: 'rearm',
  params: [
    alertIdParam('The alert (a repeating Crossing, Crossing Up or Crossing Down one)'),
    {
      kind: 'number',
      name: 'points',
      word: 'points',
      help: 'How far back past the threshold the price must go before it can fire again (0 = off)',
      what: 'number of points',
      min: 0,
      max: MAX_REARM_POINTS,
    },
  ],
  summary: 'Stop flapping: after firing, the price must go back this many points',
  async run({ ctx, values }) {
    const subscriptionId = textOf(values, 'id')!;
    const rearmPoints = numberOf(values, 'points');
    await changePreferences({ ctx, input: { subscriptionId, body: { rearmPoints } } });
    const done = rearmPoints === 0 ? 'Re-arm band off ✓' : `Re-arm band ${points(rearmPoints)} ✓`;
    // Stored either way (a preference, as over REST), but said plainly when this rule ignores it.
    return settingsCard(ctx, subscriptionId, (s) =>
      rearmApplies(s.subscription.rule.type, s.subscription.triggerType) || rearmPoints === 0
        ? done
        : `${done}, but this alert ignores it: re-arm bands apply to repeating alerts that rise above, fall below or cross a price.`,
    );
  },
};

export const unsnoozeCommand: Command = {
  name: 'unsnooze',
  params: [alertIdParam('The snoozed alert')],
  summary: 'End a snooze: the next firing goes to every channel again',
  async run({ ctx, values }) {
    const subscriptionId = textOf(values, 'id')!;
    await unsnoozeSubscription({ ctx, input: { subscriptionId } });
    return settingsCard(ctx, subscriptionId, 'Unsnoozed ✓: its next firing goes to every channel.');
  },
};
