import { z } from 'zod';
import { inTransaction, type Queryable } from '../../db/client.js';
import { accounts } from '../../db/schema/index.js';
import { dbOf, type ServiceContext } from '../context.js';
import { forbidden } from '../errors.js';
import { newId, newWebhookSecret } from '../ids.js';
import { insertToken } from '../tokens/issue.js';
import { text } from '../schemas.js';
import { parseInput } from '../validate.js';

export const CreateAccountInput = z.strictObject({
  name: text().trim().min(1).max(100, 'name is at most 100 characters').optional(),
});
export type CreateAccountInput = z.input<typeof CreateAccountInput>;

export interface NewAccount {
  userId: string;
  token: string;
}

export interface AccountSeed {
  name?: string | null;
  isAdmin?: boolean;
  discordUserId?: string;
  telegramUserId?: string;
}

/** Creates an account with its first API token. Used by the CLI, the admin API and bootstrap. */
export async function insertAccountWithToken(on: Queryable, seed: AccountSeed): Promise<NewAccount> {
  return inTransaction(on, async (tx) => {
    const id = newId();
    await tx.insert(accounts).values({
      id,
      name: seed.name ?? null,
      isAdmin: seed.isAdmin ?? false,
      webhookSecret: newWebhookSecret(),
      discordUserId: seed.discordUserId,
      telegramUserId: seed.telegramUserId,
    });
    const issued = await insertToken(tx, id, 'default', null);
    return { userId: id, token: issued.token };
  });
}

/** `POST /admin/accounts`: only admin accounts may create others. */
export async function createAccount({ ctx, input }: { ctx: ServiceContext; input: CreateAccountInput }): Promise<NewAccount> {
  if (!ctx.account.isAdmin) throw forbidden('Only an admin account can create accounts');
  const { name } = parseInput(CreateAccountInput, input);
  return insertAccountWithToken(dbOf(ctx), { name });
}
