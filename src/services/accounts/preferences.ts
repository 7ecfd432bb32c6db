import { z } from 'zod';
import { eq } from 'drizzle-orm';
import { accountPreferences } from '../../db/schema/index.js';
import { CHANNEL_TYPES, type ChannelType } from '../../domain/enums.js';
import { isTimeZone } from '../../domain/quiet-hours.js';
import type { Tx } from '../../db/client.js';
import { dbOf, withTransaction, type ServiceContext } from '../context.js';
import { text } from '../schemas.js';
import { parseInput } from '../validate.js';

/** Chat channels are people; webhooks are machines and keep getting everything by default. */
export const DEFAULT_QUIET_CHANNELS: readonly ChannelType[] = ['Discord', 'Telegram'];

const HHMM = z.string({ error: 'must be a time HH:MM' }).regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time HH:MM (00:00 to 23:59)');

/** `PUT /preferences`: the whole object; a field left out takes its default. */
export const AccountPreferencesInput = z.strictObject({
  timezone: text()
    .refine(isTimeZone, { message: 'timezone must be an IANA time zone name, like Europe/Berlin' })
    .optional()
    .meta({ description: 'IANA time zone name, like Europe/Berlin; UTC when left out' }),
  quietHours: z
    .strictObject({
      start: HHMM,
      end: HHMM,
      channels: z
        .array(z.enum(CHANNEL_TYPES, { error: `channels must be of: ${CHANNEL_TYPES.join(', ')}` }))
        .optional()
        .meta({ description: 'Channels held during quiet hours; Discord and Telegram when left out (webhooks are machines)' }),
    })
    .refine((q) => q.start !== q.end, { message: 'quietHours start and end must differ' })
    .nullable()
    .optional(),
});
export type AccountPreferencesInput = z.input<typeof AccountPreferencesInput>;

export interface AccountPreferencesView {
  timezone: string;
  quietHours: { start: string; end: string; channels: ChannelType[] } | null;
}

const DEFAULTS: AccountPreferencesView = { timezone: 'UTC', quietHours: null };

/** `GET /preferences`: the defaults when never set. */
export async function getAccountPreferences({ ctx }: { ctx: ServiceContext }): Promise<AccountPreferencesView> {
  const [row] = await dbOf(ctx)
    .select({ timezone: accountPreferences.timezone, quietHours: accountPreferences.quietHours })
    .from(accountPreferences)
    .where(eq(accountPreferences.accountId, ctx.account.id));
  return row ?? DEFAULTS;
}

/**
 * Changes only what is given (the chat's `/quiet` and `/timezone`), validated as the PUT body is.
 * Quiet hours given without channels keep the channels already chosen (over REST, say), or the
 * default ones when there were no quiet hours.
 */
export async function changeAccountPreferences({ ctx, input }: { ctx: ServiceContext; input: AccountPreferencesInput }): Promise<AccountPreferencesView> {
  const body = parseInput(AccountPreferencesInput, input);
  return withTransaction(ctx, async (tx, txCtx) => {
    await tx.select({ id: accountPreferences.accountId }).from(accountPreferences).where(eq(accountPreferences.accountId, ctx.account.id)).for('update');
    const stored = await getAccountPreferences({ ctx: txCtx });
    const quiet = body.quietHours;
    const next: AccountPreferencesView = {
      timezone: body.timezone ?? stored.timezone,
      quietHours:
        quiet === undefined
          ? stored.quietHours
          : quiet === null
            ? null
            : { start: quiet.start, end: quiet.end, channels: [...new Set(quiet.channels ?? stored.quietHours?.channels ?? DEFAULT_QUIET_CHANNELS)] },
    };
    await upsert(tx, ctx.account.id, next);
    return next;
  });
}

async function upsert(tx: Tx, accountId: string, next: AccountPreferencesView): Promise<void> {
  const values = { ...next, updatedAt: new Date() };
  await tx.insert(accountPreferences).values({ accountId, ...values }).onConflictDoUpdate({ target: accountPreferences.accountId, set: values });
}

/** `PUT /preferences`: replaces the whole object. */
export async function putAccountPreferences({ ctx, input }: { ctx: ServiceContext; input: AccountPreferencesInput }): Promise<AccountPreferencesView> {
  const body = parseInput(AccountPreferencesInput, input);
  const next: AccountPreferencesView = {
    timezone: body.timezone ?? DEFAULTS.timezone,
    quietHours: body.quietHours
      ? { start: body.quietHours.start, end: body.quietHours.end, channels: [...new Set(body.quietHours.channels ?? DEFAULT_QUIET_CHANNELS)] }
      : null,
  };
  await withTransaction(ctx, (tx) => upsert(tx, ctx.account.id, next));
  return next;
}
