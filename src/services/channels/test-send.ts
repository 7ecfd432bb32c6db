import { eq } from 'drizzle-orm';
import { accounts } from '../../db/schema/index.js';
import { sendersFromConfig, type DeliveryJob } from '../../delivery/senders/index.js';
import { previousSecretInGrace } from '../accounts/webhook-secret.js';
import { dbOf, type ServiceContext } from '../context.js';
import { notFound } from '../errors.js';
import { newId } from '../ids.js';
import { outboundUrlCheck } from '../outbound-urls.js';
import { Channel, ChatChannel } from '../subscriptions/schemas.js';
import { parseInput } from '../validate.js';
import { samplePriceNotification } from './sample-payload.js';

export interface TestSendResult {
  ok: boolean;
  statusCode: number | null;
  error: string | null;
  durationMs: number;
}

/** Where a test alert's "Open market" button leads: there is no market behind a sample. */
const SAMPLE_VENUE_URL = 'https://polymarket.com';

/**
 * Sends a sample alert, marked as a test, to one channel through the delivery senders (SSRF guard,
 * the account's signature, the timeout) and answers how it went. Nothing is stored: there is one
 * attempt, no retry, and no notification or delivery row. In App has nothing to reach: ok at once.
 */
export async function testChannel({ ctx, input }: { ctx: ServiceContext; input: unknown }): Promise<TestSendResult> {
  return sendTest(ctx, parseInput(Channel, input));
}

/** testChannel for a bot: the channel may be the chat's own (a Discord DM, see ChatChannel). */
export async function testChatChannel({ ctx, input }: { ctx: ServiceContext; input: unknown }): Promise<TestSendResult> {
  return sendTest(ctx, parseInput(ChatChannel, input));
}

async function sendTest(ctx: ServiceContext, channel: ChatChannel): Promise<TestSendResult> {
  // The save-time check of subscription channels, so a URL a rule could not keep is refused alike.
  const checkUrl = outboundUrlCheck(ctx);
  if (channel.type === 'Webhook') await checkUrl('settings.webhookUrl', channel.settings.webhookUrl);
  if (channel.type === 'Discord' && 'discordWebhookUrl' in channel.settings) {
    await checkUrl('settings.discordWebhookUrl', channel.settings.discordWebhookUrl);
  }
  const job: DeliveryJob = {
    notificationId: newId(),
    attempt: 1,
    payload: samplePriceNotification(ctx.account.id, channel, new Date()),
    settings: channel.settings ?? {},
    links: { venueUrl: SAMPLE_VENUE_URL },
    test: true,
  };
  if (channel.type === 'Webhook') Object.assign(job, await signingSecrets(ctx));
  const result = await sendersFromConfig(ctx.config)[channel.type].send(job);
  const answer: TestSendResult = {
    ok: result.outcome === 'sent',
    statusCode: result.statusCode ?? null,
    error: result.error ?? null,
    durationMs: result.durationMs,
  };
  // No URL or chat id here: the channel's settings are the user's credentials.
  ctx.logger.info({ channel: channel.type, ok: answer.ok, statusCode: answer.statusCode, durationMs: answer.durationMs }, 'test send');
  return answer;
}

/** The secrets a real delivery would be signed with now, the replaced one during its grace window. */
async function signingSecrets(ctx: ServiceContext): Promise<Pick<DeliveryJob, 'signingSecret' | 'previousSigningSecret'>> {
  const [row] = await dbOf(ctx)
    .select({ secret: accounts.webhookSecret, previous: accounts.previousWebhookSecret, rotatedAt: accounts.webhookSecretRotatedAt })
    .from(accounts)
    .where(eq(accounts.id, ctx.account.id));
  if (!row) throw notFound('Account not found', 'account');
  const previous = { previousWebhookSecret: row.previous, rotatedAtMs: row.rotatedAt?.getTime() ?? null };
  return { signingSecret: row.secret, previousSigningSecret: previousSecretInGrace(previous, ctx.config.WEBHOOK_SECRET_GRACE_MS) };
}
