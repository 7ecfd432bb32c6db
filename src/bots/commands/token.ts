import { createToken } from '../../services/tokens/index.js';
import type { Command } from './types.js';

export const PRIVATE_ONLY = 'I sent you a private message.';

/** A REST API token. Secrets are only ever written in a private chat. */
export const tokenCommand: Command = {
  name: 'token',
  usage: 'token',
  summary: 'A REST API token for your account (sent privately)',
  async run({ ctx, chat }) {
    const issued = await createToken({ ctx, input: { name: `${chat.kind} bot` } });
    const secret = `Your API token (shown once):\n${issued.token}\nUse it as "Authorization: Bearer <token>".`;
    if (chat.isPrivate) return { text: secret, private: true };
    return { text: PRIVATE_ONLY, privateMessage: secret };
  },
};
