import type { Config } from '../config.js';

// The operator's bot allowlists (BOT_ALLOWED_*): who the bots talk to at all. Checked by the
// transports before the account lookup, so a refused user leaves nothing in the database.

type Lists = Pick<Config, 'BOT_ALLOWED_TELEGRAM_USERS' | 'BOT_ALLOWED_DISCORD_GUILDS' | 'BOT_ALLOWED_DISCORD_USERS'>;

export const REFUSED =
  "Sorry, this Oddswatch bot is private: its operator has not opened it to you. If you think you should have access, ask them to add you.";
export const REFUSED_DISCORD_DM =
  'Sorry, this Oddswatch bot only answers in the servers its operator opened it to: use it there, or ask the operator to add you.';

/** Unset: everyone. Set: the listed Telegram users, in private chats and groups alike. */
export const telegramUserAllowed = (config: Lists, userId: string): boolean =>
  !config.BOT_ALLOWED_TELEGRAM_USERS || config.BOT_ALLOWED_TELEGRAM_USERS.has(userId);

/**
 * Neither Discord list set: everyone. Otherwise a listed user anywhere (servers and DMs), and
 * anyone in a listed server. A DM carries no server, so only the users list opens DMs.
 */
export function discordAllowed(config: Lists, { userId, guildId }: { userId: string; guildId?: string | undefined }): boolean {
  const guilds = config.BOT_ALLOWED_DISCORD_GUILDS;
  const users = config.BOT_ALLOWED_DISCORD_USERS;
  if (!guilds && !users) return true;
  return Boolean(users?.has(userId) || (guildId && guilds?.has(guildId)));
}

// Enough for any real bot's crowd of strangers; past it the memory starts over (a second notice, not a leak).
const MAX_REMEMBERED = 10_000;

/**
 * Who was already told they are refused, in this process: the notice goes once, later messages
 * are ignored. Memory only, by design: storing anything about a refused user is what the list forbids.
 */
export class RefusedOnce {
  private readonly told = new Set<string>();

  /** True the first time for this user (answer them), false afterwards (stay silent). */
  first(userId: string): boolean {
    if (this.told.has(userId)) return false;
    if (this.told.size >= MAX_REMEMBERED) this.told.clear();
    this.told.add(userId);
    return true;
  }
}
