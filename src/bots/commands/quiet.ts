import { changeAccountPreferences, getAccountPreferences, type AccountPreferencesView } from '../../services/accounts/index.js';
import type { ChannelType } from '../../domain/enums.js';
import { QUIET_CHANNEL_WORDS } from './chat-words.js';
import { localMinute } from './local-time.js';
import { textOf, type Platform } from './params.js';
import type { Command } from './types.js';
import { UsageError } from './types.js';

// Account-wide noise control in chat: quiet hours and the time zone they (and daily digests, and
// the times the bots show) are read in. The service checks the times and the zone; its refusals
// are worded in chat-words.ts.

const EXAMPLE: Record<Platform, string> = {
  telegram: '/quiet 22:00 07:00 Europe/Paris',
  discord: '/quiet start:22:00 end:07:00 timezone:Europe/Paris',
};

const CHANNEL_OF: Record<(typeof QUIET_CHANNEL_WORDS)[number], ChannelType> = { telegram: 'Telegram', discord: 'Discord', webhook: 'Webhook', inbox: 'In App' };

const channelOf = (word: string): ChannelType | undefined => CHANNEL_OF[word.toLowerCase().replace(/s$/, '') as keyof typeof CHANNEL_OF];

/**
 * `telegram, discord webhook` → the channels' names. A word that names none is passed on as typed,
 * so the service's schema refuses it and chat-words.ts says which word and what to use instead.
 */
function channelsOf(words: string): ChannelType[] {
  const list = words.toLowerCase().replace(/\bin[ -]?app\b/g, 'inbox').split(/[\s,]+/).filter((w) => w !== '' && w !== 'and');
  return list.map((w) => channelOf(w) ?? (w as ChannelType));
}

const andWords = (words: readonly string[]): string => (words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`);

function describeQuiet(p: AccountPreferencesView): string {
  if (!p.quietHours) return `No quiet hours: alerts are sent at any hour. Your time zone: ${p.timezone}.`;
  const { start, end, channels } = p.quietHours;
  return [
    `Quiet hours: ${start} to ${end} ${p.timezone}, every day.`,
    `In that time ${andWords(channels)} alerts are held, then sent as one summary per chat or webhook when quiet hours end. Nothing is dropped.`,
  ].join('\n');
}

export const quietCommand: Command = {
  name: 'quiet',
  params: [
    { kind: 'text', name: 'start', word: 'from|off', help: 'When quiet hours start, like 22:00 (or off to end them)', optional: true },
    { kind: 'text', name: 'end', word: 'to', help: 'When they end, like 07:00', optional: true },
    { kind: 'text', name: 'timezone', word: 'time zone', help: 'Your time zone, like Europe/Paris (kept when left out)', optional: true },
    { kind: 'text', name: 'channels', word: 'channels', help: 'Held channels: telegram discord webhook inbox (kept when left out)', optional: true, rest: true },
  ],
  summary: 'Quiet hours: hold chat alerts, one summary when they end (or off)',
  async run({ ctx, chat, values }) {
    const start = textOf(values, 'start');
    const end = textOf(values, 'end');
    let timezone = textOf(values, 'timezone');
    let channelWords = textOf(values, 'channels');
    // Typed words are positional: `/quiet 22:00 07:00 telegram` names a channel, not a time zone.
    if (timezone !== undefined && channelOf(timezone) !== undefined) {
      channelWords = [timezone, channelWords].filter((w) => w !== undefined).join(' ');
      timezone = undefined;
    }
    if (start === undefined && end === undefined && timezone === undefined && channelWords === undefined) {
      const now = await getAccountPreferences({ ctx });
      return { text: now.quietHours ? describeQuiet(now) : `${describeQuiet(now)}\nSet them with ${EXAMPLE[chat.kind]}.` };
    }
    if (start?.toLowerCase() === 'off') {
      if (end !== undefined || timezone !== undefined || channelWords !== undefined) throw new UsageError('off takes nothing after it: send /quiet off.');
      await changeAccountPreferences({ ctx, input: { quietHours: null } });
      return { text: 'Quiet hours off ✓: alerts are sent at any hour.' };
    }
    if (start === undefined || end === undefined) throw new UsageError(`Give both times, like ${EXAMPLE[chat.kind]}, or /quiet off.`);
    const next = await changeAccountPreferences({ ctx, input: { quietHours: { start, end, ...(channelWords !== undefined ? { channels: channelsOf(channelWords) } : {}) }, ...(timezone !== undefined ? { timezone } : {}) } });
    return { text: `Quiet hours ✓\n${describeQuiet(next)}` };
  },
};

export const timezoneCommand: Command = {
  name: 'timezone',
  params: [{ kind: 'text', name: 'name', word: 'time zone', help: 'An IANA time zone name, like Europe/Paris or America/New_York', optional: true }],
  summary: 'Your time zone, for quiet hours, daily digests and the times I show',
  async run({ ctx, values }) {
    const name = textOf(values, 'name');
    const prefs = name === undefined ? await getAccountPreferences({ ctx }) : await changeAccountPreferences({ ctx, input: { timezone: name } });
    const clock = localMinute(new Date().toISOString(), prefs.timezone);
    const head = name === undefined ? `Your time zone: ${prefs.timezone}.` : `Time zone ✓: ${prefs.timezone}.`;
    return { text: `${head} It is now ${clock}. Quiet hours, daily digests and the times I show you use it.` };
  },
};
