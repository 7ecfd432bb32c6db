import { listNotifications } from '../../services/inbox/index.js';
import type { Command } from './types.js';

function summarize(payload: Record<string, unknown>): string {
  for (const key of ['message', 'title', 'marketQuestion', 'eventTitle']) {
    const value = payload[key];
    if (typeof value === 'string' && value) return value;
  }
  return typeof payload.type === 'string' ? payload.type : 'notification';
}

export const inboxCommand: Command = {
  name: 'inbox',
  personal: true,
  summary: 'Your last 10 notifications',
  async run({ ctx }) {
    const { notifications } = await listNotifications({ ctx, input: { limit: '10' } });
    if (notifications.length === 0) return { text: 'Your inbox is empty.' };
    const lines = notifications.map((n) => `• ${n.createdAt.slice(0, 16).replace('T', ' ')} ${summarize(n.payload)}${n.readAt ? '' : ' (new)'}`);
    return { text: `Last notifications:\n${lines.join('\n')}` };
  },
};
