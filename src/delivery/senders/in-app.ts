import type { ChannelSender, SendResult } from './types.js';

/** The notification row is the inbox entry, so an In App delivery has nothing left to do. */
export function createInAppSender(): ChannelSender {
  return {
    send: async (): Promise<SendResult> => ({ outcome: 'sent', durationMs: 0 }),
  };
}
