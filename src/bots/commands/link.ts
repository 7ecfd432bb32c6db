import { LINK_CODE_TTL_MS, redeemLinkCode, type LinkOutcome } from '../../services/accounts/index.js';
import { textOf } from './params.js';
import { ChatRefusal, type Command } from './types.js';

const NEW_CODE = 'Make a new one with POST /links (or in the console under Settings).';
const platformName = { telegram: 'Telegram', discord: 'Discord' } as const;
const count = (n: number, one: string) => `${n} ${one}${n === 1 ? '' : 's'}`;

function words(outcome: LinkOutcome, platform: string): { text: string; failed?: boolean } {
  switch (outcome.result) {
    case 'linked': {
      const before = {
        none: '',
        // An empty account is all a first message makes: not worth a word, even when it was this one.
        removed: '',
        kept: ' Your previous account keeps its alerts and watchlists: reach it with its API tokens or from the other chat app.',
      }[outcome.previous];
      return { text: `Linked: from now on you act here as the account that made this code: its alerts, watchlists and inbox.${before}` };
    }
    case 'already':
      return { text: 'You are already linked to that account: nothing to do.' };
    case 'unknown':
      return { text: `I don't know that link code: check it for typos. ${NEW_CODE}`, failed: true };
    case 'expired':
      return { text: `That link code has expired (a code lasts ${LINK_CODE_TTL_MS / 60_000} minutes). ${NEW_CODE}`, failed: true };
    case 'used':
      return { text: `That link code was already used; a code works once. ${NEW_CODE}`, failed: true };
    case 'taken':
      return {
        text: `That account is already linked to another ${platform} user. Unlink them first (DELETE /links/${platform.toLowerCase()}, or in the console), then send the same code again.`,
        failed: true,
      };
    case 'holds-data': {
      const held = [outcome.alerts ? count(outcome.alerts, 'alert') : '', outcome.watchlists ? count(outcome.watchlists, 'watchlist') : ''].filter(Boolean).join(' and ');
      return {
        text:
          `Not linked: your account here has ${held} that only this chat can reach, and linking would strand them. ` +
          'Delete them first (/alerts, /watchlists), or keep a way into this account with /token, then send the same code again.',
        failed: true,
      };
    }
  }
}

/** `/link <code>`: this chat user joins the account that made the code (`POST /links`). */
export const linkCommand: Command = {
  name: 'link',
  params: [{ kind: 'text', name: 'code', help: 'The code from POST /links or the console (10 minutes, once)' }],
  summary: 'Join your existing account with a link code',
  async run({ ctx, chat, values }) {
    if (!chat.userId) throw new ChatRefusal('I cannot tell who sent this, so I cannot link it.');
    const outcome = await redeemLinkCode(ctx, { kind: chat.kind, userId: chat.userId, code: textOf(values, 'code') ?? '' });
    if (outcome.result === 'linked') ctx.logger.info({ platform: chat.kind, previous: outcome.previous }, 'chat user linked to an account');
    return words(outcome, platformName[chat.kind]);
  },
};
