import { testChatChannel, type TestSendResult } from '../../services/channels/index.js';
import type { ChatChannel } from '../../services/subscriptions/index.js';
import { chatChannel } from './shared.js';
import type { Command } from './types.js';

export const TEST_SENT = 'Test alert sent ✓';

/**
 * A chat with no channel of its own for alerts: `/alert` there sends to the in-app inbox, which a
 * test cannot reach or fail to reach (and the test send stores nothing).
 */
const NOTHING_TO_TEST = 'Alerts you make here go to your Oddswatch inbox (/inbox), not to this chat, so there is nothing here to test.';

/** What failed, in chat words; the sender's own sentence otherwise (it never holds a URL or token). */
function failureWords(channel: ChatChannel, result: TestSendResult): string {
  const { statusCode, error } = result;
  if (channel.type === 'Telegram' && statusCode === 403) {
    return 'Telegram refused it: I may have been blocked, removed from this chat, or not allowed to post here.';
  }
  if (channel.type === 'Discord' && 'discordWebhookUrl' in channel.settings && (statusCode === 401 || statusCode === 404)) {
    return "Discord says this channel's Oddswatch webhook was deleted. Send /testalert again to set up a new one.";
  }
  if (error) return error;
  return statusCode === null ? 'no answer' : `HTTP ${statusCode}`;
}

/** "Send a test alert here": a sample alert, labelled Test, to where `/alert` in this chat would send. */
export const testAlertCommand: Command = {
  name: 'testalert',
  summary: 'Send a test alert to this chat, to check alerts reach it',
  async run({ ctx, chat }) {
    const channel = chatChannel(chat);
    if (channel.type === 'In App') return { text: NOTHING_TO_TEST };
    const result = await testChatChannel({ ctx, input: channel });
    if (result.ok) return { text: TEST_SENT };
    return { text: `The test alert did not arrive: ${failureWords(channel, result)}` };
  },
};
