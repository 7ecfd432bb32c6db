import { createToken, listTokens, revokeToken, type TokenSummary } from '../../services/tokens/index.js';
import { numberOf } from './params.js';
import type { Command } from './types.js';

export const PRIVATE_ONLY = 'I sent you a private message.';

/** A REST API token. Secrets are only ever written in a private chat. */
export const tokenCommand: Command = {
  name: 'token',
  summary: 'A REST API token for your account (sent privately)',
  async run({ ctx, chat }) {
    const issued = await createToken({ ctx, input: { name: `${chat.kind} bot` } });
    const secret = `Your API token (shown once):\n${issued.token}\nUse it as "Authorization: Bearer <token>".`;
    if (chat.isPrivate) return { text: secret, private: true };
    return { text: PRIVATE_ONLY, privateMessage: secret };
  },
};

const day = (d: Date | null): string => (d ? d.toISOString().slice(0, 10) : 'never');

/** One token as a line: its number in the list, name, the first characters (never the secret), dates. */
const describeToken = (t: TokenSummary, i: number): string =>
  `${i + 1}. ${t.name} — ${t.prefix}… made ${day(t.createdAt)}, last used ${day(t.lastUsedAt)}${t.expiresAt && t.expiresAt <= new Date() ? ' (expired)' : ''}`;

/** The account's API tokens, numbered as `/revoke` takes them. Prefixes only: safe in a group too. */
export const tokensCommand: Command = {
  name: 'tokens',
  personal: true,
  summary: 'Your API tokens, numbered for /revoke',
  async run({ ctx }) {
    const tokens = await listTokens({ ctx });
    if (tokens.length === 0) return { text: 'You have no API tokens. Send /token for one.' };
    return { text: `Your API tokens (newest first):\n${tokens.map(describeToken).join('\n')}\nRevoke one with /revoke <number>.` };
  },
};

// The bound is MAX_TOKENS' own upper bound (config.ts): no account can hold more.
export const revokeCommand: Command = {
  name: 'revoke',
  params: [{ kind: 'integer', name: 'number', help: "The token's number in /tokens", what: 'token number', min: 1, max: 10_000 }],
  summary: 'Revoke an API token (its number in /tokens)',
  async run({ ctx, values }) {
    const n = numberOf(values, 'number');
    const token = (await listTokens({ ctx }))[n - 1];
    if (!token) return { text: `You have no token number ${n}. Send /tokens to see their numbers.`, failed: true };
    await revokeToken({ ctx, input: { tokenId: token.id } });
    return { text: `Revoked token ${n} (${token.name}, ${token.prefix}…). Programs using it are refused from now on.` };
  },
};
