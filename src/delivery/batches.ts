import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows, type Queryable } from '../db/client.js';
import type { ChannelSettings } from '../db/schema/subscriptions.js';
import type { ChannelType } from '../domain/enums.js';
import { nextLocalHour, nextLocalTimeOfDay, quietHoursEnd, type QuietHours } from '../domain/quiet-hours.js';

// Batched sends (issue #19 items 3-5): a delivery that is not sent on its own gets a batch key and
// the due time of its batch when it is written. The worker claims the deliveries of one key
// together and sends them as one summary message (one signed body for a webhook); each delivery
// keeps its own row, attempts and status. Three producers, decided here in this order:
//   quiet  - written in the account's quiet hours for that channel: due when they end;
//   hourly / daily - the subscription's digest mode: due at the next local top of the hour, or
//            DIGEST_HOUR, in the account's time zone (a digest due inside quiet hours waits for
//            their end and joins that summary);
//   burst  - a chat destination that already had BURST_MAX firings in its window: due at the end
//            of the window, as one grouped message.

export const BATCH_KINDS = ['quiet', 'hourly', 'daily', 'burst'] as const;
export type BatchKind = (typeof BATCH_KINDS)[number];

/** What the batch decision needs of one delivery being written. */
export interface BatchCandidate {
  accountId: string;
  /** Null for notices that are no rule's firing (endpoint and feed health): quiet hours only. */
  subscriptionId: string | null;
  channelType: ChannelType;
  settings: ChannelSettings | null;
}

export interface BatchDecision {
  batchKey: string;
  dueAt: Date;
}

export interface AccountQuietHours extends QuietHours {
  timezone: string;
  channels: ChannelType[];
}

export interface BurstSettings {
  /** BURST_MAX: firings to one chat sent one by one within a window. */
  max: number;
  /** BURST_WINDOW_MS. */
  windowMs: number;
}

export interface BatchInputs {
  nowMs: number;
  quietHours: ReadonlyMap<string, AccountQuietHours>;
  /** Each subscription's digest mode, when not instant. */
  digests: ReadonlyMap<string, 'hourly' | 'daily'>;
  /** The account's time zone (digests of accounts without quiet hours need it too). */
  timezones: ReadonlyMap<string, string>;
  digestHour: number;
  /** Absent: no burst grouping (writers that are not the engine's, and tests that count every message). */
  burst?: BurstSettings;
}

/** The chat, webhook or Discord destination a delivery goes to; undefined for In App. */
export function destinationOf(channelType: ChannelType, settings: ChannelSettings | null): string | undefined {
  const target =
    channelType === 'Telegram'
      ? settings?.telegramChatId
      : channelType === 'Discord'
        ? (settings?.discordWebhookUrl ?? settings?.discordChannelId)
        : channelType === 'Webhook'
          ? settings?.webhookUrl
          : undefined;
  return target === undefined ? undefined : `${channelType}:${String(target)}`;
}

/** One account's one destination, hashed: keys and the burst table hold no URL or chat id. */
function destinationKey(accountId: string, destination: string): string {
  return createHash('sha256').update(`${accountId}\n${destination}`).digest('base64url').slice(0, 22);
}

const keyOf = (kind: BatchKind, destination: string, dueMs: number) => `${kind}:${destination}:${dueMs}`;

/** The producer of a batch, read back from its key (the summary's wording). */
export function batchKindOf(batchKey: string): BatchKind {
  const kind = batchKey.slice(0, batchKey.indexOf(':'));
  return (BATCH_KINDS as readonly string[]).includes(kind) ? (kind as BatchKind) : 'burst';
}

/**
 * The batch of each candidate (undefined: sent on its own, at once). Quiet hours and digests are
 * pure time arithmetic; bursts take one statement for all of the candidates' chat destinations.
 */
export async function decideBatches(tx: Queryable, candidates: readonly BatchCandidate[], inputs: BatchInputs): Promise<(BatchDecision | undefined)[]> {
  const { nowMs } = inputs;
  const decisions: (BatchDecision | undefined)[] = [];
  const bursting: { index: number; destination: string; accountId: string }[] = [];
  for (const [index, c] of candidates.entries()) {
    const destination = destinationOf(c.channelType, c.settings);
    if (destination === undefined) {
      decisions.push(undefined);
      continue;
    }
    let hashed: string | undefined; // only for the deliveries that are batched
    const dest = () => (hashed ??= destinationKey(c.accountId, destination));
    const hush = inputs.quietHours.get(c.accountId);
    const quietAt = (atMs: number) => (hush && hush.channels.includes(c.channelType) ? quietHoursEnd(atMs, hush.timezone, hush) : null);
    const quietEnd = quietAt(nowMs);
    if (quietEnd !== null) {
      decisions.push({ batchKey: keyOf('quiet', dest(), quietEnd), dueAt: new Date(quietEnd) });
      continue;
    }
    const digest = c.subscriptionId ? inputs.digests.get(c.subscriptionId) : undefined;
    if (digest) {
      const zone = inputs.timezones.get(c.accountId) ?? 'UTC';
      const end = digest === 'hourly' ? nextLocalHour(nowMs, zone) : nextLocalTimeOfDay(nowMs, zone, inputs.digestHour);
      // A digest that would arrive in quiet hours waits for their end, in that summary.
      const heldTo = quietAt(end);
      decisions.push(
        heldTo === null
          ? { batchKey: keyOf(digest, dest(), end), dueAt: new Date(end) }
          : { batchKey: keyOf('quiet', dest(), heldTo), dueAt: new Date(heldTo) },
      );
      continue;
    }
    if (inputs.burst && c.subscriptionId && (c.channelType === 'Telegram' || c.channelType === 'Discord')) {
      bursting.push({ index, destination: dest(), accountId: c.accountId });
    }
    decisions.push(undefined);
  }
  if (inputs.burst && bursting.length > 0) await decideBursts(tx, bursting, inputs.burst, nowMs, decisions);
  return decisions;
}

/**
 * Counts this write's firings into each destination's window (one upsert for all of them, in a
 * fixed order so concurrent writers lock the rows alike): the firings up to BURST_MAX of a window
 * go at once, the rest wait for its end in one batch. A window opens with the first firing after
 * the previous one ended.
 */
async function decideBursts(
  tx: Queryable,
  bursting: readonly { index: number; destination: string; accountId: string }[],
  burst: BurstSettings,
  nowMs: number,
  decisions: (BatchDecision | undefined)[],
): Promise<void> {
  const byDestination = new Map<string, { accountId: string; indexes: number[] }>();
  for (const b of bursting) {
    const entry = byDestination.get(b.destination) ?? { accountId: b.accountId, indexes: [] };
    entry.indexes.push(b.index);
    byDestination.set(b.destination, entry);
  }
  const ordered = [...byDestination].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const now = new Date(nowMs).toISOString();
  const values = sql.join(
    ordered.map(([destination, { accountId, indexes }]) => sql`(${destination}, ${accountId}, ${now}::timestamptz, ${indexes.length}::int)`),
    sql`, `,
  );
  const rows = await queryRows<{ destination: string; start_ms: number; count: number }>(
    tx,
    sql`
    insert into delivery_bursts as b (destination, account_id, window_start, count)
    values ${values}
    on conflict (destination) do update set
      window_start = case when b.window_start <= excluded.window_start - ${burst.windowMs}::int * interval '1 millisecond'
        then excluded.window_start else b.window_start end,
      count = case when b.window_start <= excluded.window_start - ${burst.windowMs}::int * interval '1 millisecond'
        then excluded.count else b.count + excluded.count end
    returning destination, (extract(epoch from window_start) * 1000)::float8 as start_ms, count`,
  );
  for (const row of rows) {
    const { indexes } = byDestination.get(row.destination)!;
    const before = row.count - indexes.length; // this window's firings written before this write
    const end = row.start_ms + burst.windowMs;
    indexes.forEach((index, i) => {
      if (before + i + 1 > burst.max) decisions[index] = { batchKey: keyOf('burst', row.destination, end), dueAt: new Date(end) };
    });
  }
}
