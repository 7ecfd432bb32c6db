import { createHash, randomInt } from 'node:crypto';
import { and, count, eq, isNotNull, isNull, lt } from 'drizzle-orm';
import { z } from 'zod';
import { notifyChanges, type Tx } from '../../db/client.js';
import { TOKEN_REVOKED } from '../../db/coordination.js';
import { accounts, apiTokens, linkCodes, subscriptions, watchlists } from '../../db/schema/index.js';
import { withTransaction, type ServiceContext, type SystemDeps } from '../context.js';
import { notFound } from '../errors.js';
import { tokenCheckCache } from '../tokens/check-cache.js';
import { parseInput } from '../validate.js';
import { chatColumn, type ChatKind } from './link.js';

/** How long a link code can be redeemed: long enough to switch apps and type it, short for a guesser. */
export const LINK_CODE_TTL_MS = 10 * 60_000;
/** Expired codes are kept this long so `/link` can say "expired" rather than "unknown"; then purged. */
const KEEP_EXPIRED_MS = 86_400_000;

// Crockford's base32 without the look-alikes (no I, L, O, U): ten of them are 50 bits, in a
// 10-minute window, typed by a person. Dashes and spaces in what they type are ignored.
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const CODE_LENGTH = 10;

const hashCode = (code: string): string => createHash('sha256').update(code).digest('hex');

/** What a person typed, as stored: upper case, no separators. Undefined when it cannot be a code. */
export function normalizeLinkCode(typed: string): string | undefined {
  const code = typed.toUpperCase().replace(/[\s-]/g, '');
  return code.length === CODE_LENGTH && [...code].every((c) => ALPHABET.includes(c)) ? code : undefined;
}

function newCode(): { shown: string; stored: string } {
  const chars = Array.from({ length: CODE_LENGTH }, () => ALPHABET[randomInt(ALPHABET.length)]!).join('');
  return { shown: `${chars.slice(0, 5)}-${chars.slice(5)}`, stored: chars };
}

export interface IssuedLinkCode {
  code: string;
  expiresAt: Date;
}

/**
 * `POST /links`: a one-time code for `/link <code>` in Telegram or Discord. A new code replaces
 * the account's unused one, so at most one is live per account.
 */
export async function createLinkCode({ ctx, now = new Date() }: { ctx: ServiceContext; now?: Date }): Promise<IssuedLinkCode> {
  const { shown, stored } = newCode();
  const expiresAt = new Date(now.getTime() + LINK_CODE_TTL_MS);
  await withTransaction(ctx, async (tx) => {
    await tx.delete(linkCodes).where(and(eq(linkCodes.accountId, ctx.account.id), isNull(linkCodes.usedAt)));
    await tx.delete(linkCodes).where(lt(linkCodes.expiresAt, new Date(now.getTime() - KEEP_EXPIRED_MS)));
    await tx.insert(linkCodes).values({ codeHash: hashCode(stored), accountId: ctx.account.id, expiresAt });
  });
  return { code: shown, expiresAt };
}

/**
 * What `/link` did. Refusals change nothing and leave the code usable (except unknown, expired and
 * used codes): the person can fix the cause and send the same code again.
 */
export type LinkOutcome =
  /** `previous`: the chat user's former account was empty and removed, kept (it has another way in), or there was none. */
  | { result: 'linked'; previous: 'none' | 'removed' | 'kept' }
  | { result: 'already' }
  | { result: 'unknown' | 'expired' | 'used' }
  /** The code's account already has another user of this platform. */
  | { result: 'taken' }
  /** The chat user's own account holds things only this chat user can reach: linking would strand them. */
  | { result: 'holds-data'; watchlists: number; alerts: number };

const chatField = (kind: ChatKind) => (kind === 'telegram' ? 'telegramUserId' : 'discordUserId') satisfies keyof typeof accounts.$inferInsert;

/**
 * `/link <code>`: attaches a chat identity to the code's account, in one transaction. The chat
 * user's previous account (made on their first message) is removed when it holds nothing and
 * nobody can reach it any other way, left as it is without this identity when it can be reached
 * otherwise (the other platform, an API token in use, admin), and otherwise the link is refused:
 * its rules and watchlists would be stranded (docs/decisions.md, "Account linking").
 */
export async function redeemLinkCode(
  deps: SystemDeps,
  { kind, userId, code, now = new Date() }: { kind: ChatKind; userId: string; code: string; now?: Date },
): Promise<LinkOutcome> {
  const stored = normalizeLinkCode(code);
  if (!stored) return { result: 'unknown' };
  const forgotten: string[] = [];
  const outcome = await withTransaction(deps, async (tx): Promise<LinkOutcome> => {
    const [row] = await tx.select().from(linkCodes).where(eq(linkCodes.codeHash, hashCode(stored))).for('update');
    if (!row) return { result: 'unknown' };
    if (row.usedAt) return { result: 'used' };
    if (row.expiresAt <= now) return { result: 'expired' };

    const column = chatColumn(kind);
    const [target] = await tx.select({ id: accounts.id, linked: column }).from(accounts).where(eq(accounts.id, row.accountId)).for('update');
    if (!target) return { result: 'unknown' };
    if (target.linked === userId) return { result: 'already' };
    if (target.linked !== null) return { result: 'taken' };

    let previous: 'none' | 'removed' | 'kept' = 'none';
    const [current] = await tx
      .select({ id: accounts.id, isAdmin: accounts.isAdmin, telegram: accounts.telegramUserId, discord: accounts.discordUserId })
      .from(accounts)
      .where(eq(column, userId))
      .for('update');
    if (current) {
      const tokens = await tx
        .select({ id: apiTokens.id, lastUsedAt: apiTokens.lastUsedAt })
        .from(apiTokens)
        .where(and(eq(apiTokens.accountId, current.id), isNull(apiTokens.revokedAt)));
      // The token every chat account is made with is never shown to anyone: only a second one
      // (from /token) or one that was used means someone holds a key to this account.
      const otherWayIn =
        current.isAdmin || (kind === 'telegram' ? current.discord : current.telegram) !== null || tokens.length > 1 || tokens.some((t) => t.lastUsedAt);
      if (otherWayIn) {
        await tx.update(accounts).set({ [chatField(kind)]: null }).where(eq(accounts.id, current.id));
        previous = 'kept';
      } else {
        const held = await heldBy(tx, current.id);
        if (held.watchlists + held.alerts > 0) return { result: 'holds-data', ...held };
        await tx.delete(accounts).where(eq(accounts.id, current.id));
        // Nobody held these tokens, but every API process's token cache forgets them anyway: a
        // cached check would otherwise outlive the account by up to its maximum age.
        await notifyChanges(tx, TOKEN_REVOKED, tokens.map((t) => t.id));
        forgotten.push(...tokens.map((t) => t.id));
        previous = 'removed';
      }
    }
    await tx.update(accounts).set({ [chatField(kind)]: userId }).where(eq(accounts.id, target.id));
    await tx.update(linkCodes).set({ usedAt: now }).where(eq(linkCodes.codeHash, row.codeHash));
    return { result: 'linked', previous };
  });
  const cache = tokenCheckCache(deps.database);
  for (const id of forgotten) cache?.forget(id);
  return outcome;
}

async function heldBy(tx: Tx, accountId: string) {
  const n = async (table: typeof watchlists | typeof subscriptions) => {
    const [row] = await tx.select({ n: count() }).from(table).where(eq(table.accountId, accountId));
    return row?.n ?? 0;
  };
  // Its inbox is not counted: without alerts it is only history, and it goes with the account.
  return { watchlists: await n(watchlists), alerts: await n(subscriptions) };
}

const UnlinkInput = z.strictObject({
  platform: z.enum(['telegram', 'discord'], 'platform is telegram or discord'),
});
type UnlinkInput = z.input<typeof UnlinkInput>;

/**
 * `DELETE /links/{platform}`: the chat user no longer acts as this account. Their next message
 * starts a new chat account of their own, as for anyone the bot has not met.
 */
export async function unlinkChat({ ctx, input }: { ctx: ServiceContext; input: UnlinkInput }): Promise<void> {
  const { platform } = parseInput(UnlinkInput, input);
  const column = chatColumn(platform);
  const cleared = await withTransaction(ctx, (tx) =>
    tx
      .update(accounts)
      .set({ [chatField(platform)]: null })
      .where(and(eq(accounts.id, ctx.account.id), isNotNull(column)))
      .returning({ id: accounts.id }),
  );
  if (cleared.length === 0) throw notFound(`No ${platform} user is linked to this account`);
}
