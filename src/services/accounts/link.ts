import { eq } from 'drizzle-orm';
import { isUniqueViolation } from '../../db/client.js';
import { accounts } from '../../db/schema/index.js';
import type { AccountRef, SystemDeps } from '../context.js';
import { insertAccountWithToken } from './create.js';

export type ChatKind = 'telegram' | 'discord';

/** The accounts column that holds a chat user's platform id. */
export const chatColumn = (kind: ChatKind) => (kind === 'telegram' ? accounts.telegramUserId : accounts.discordUserId);

async function findChatAccount(deps: Pick<SystemDeps, 'database'>, kind: ChatKind, userId: string) {
  const [row] = await deps.database.db.select({ id: accounts.id, isAdmin: accounts.isAdmin }).from(accounts).where(eq(chatColumn(kind), userId));
  return row;
}

/** The account of a chat user, created on first use. Two first messages at once: the loser re-reads. */
export async function findOrCreateChatAccount(
  deps: Pick<SystemDeps, 'database'>,
  { kind, userId }: { kind: ChatKind; userId: string },
): Promise<AccountRef> {
  const existing = await findChatAccount(deps, kind, userId);
  if (existing) return existing;
  try {
    const seed = kind === 'telegram' ? { telegramUserId: userId } : { discordUserId: userId };
    const created = await insertAccountWithToken(deps.database.db, { name: `${kind}:${userId}`, ...seed });
    return { id: created.userId, isAdmin: false };
  } catch (err) {
    if (!isUniqueViolation(err)) throw err;
    const raced = await findChatAccount(deps, kind, userId);
    if (!raced) throw err;
    return raced;
  }
}
