import { issueLoginCode } from '../../services/sessions/index.js';
import { PRIVATE_ONLY } from './token.js';
import type { Command } from './types.js';

/** A one-time link that signs a browser in to the web console. Like /token, only ever sent privately. */
export const loginCommand: Command = {
  name: 'login',
  summary: 'A one-time link to the web console (sent privately, valid 10 minutes)',
  async run({ ctx, chat }) {
    const { url } = await issueLoginCode({ ctx });
    const secret = `Open this link to sign in to the web console (it works once, for 10 minutes):\n${url}`;
    if (chat.isPrivate) return { text: secret, private: true };
    return { text: PRIVATE_ONLY, privateMessage: secret };
  },
};
