import { count, eq } from 'drizzle-orm';
import { OPERATOR_LOCK } from '../../db/coordination.js';
import { accounts } from '../../db/schema/index.js';
import type { SystemDeps } from '../context.js';
import { notFound } from '../errors.js';
import { insertToken, type IssuedToken } from '../tokens/issue.js';
import { parseInput } from '../validate.js';
import { OperatorTokenInput } from '../tokens/schemas.js';
import { CreateAccountInput, insertAccountWithToken, type NewAccount } from './create.js';

/** The operator's `accounts create`: the first account of an install is an admin. */
export async function createAccountAsOperator(deps: SystemDeps, input: CreateAccountInput | undefined): Promise<NewAccount> {
  const { name } = parseInput(CreateAccountInput, input ?? {});
  return deps.database.withAdvisoryLock(OPERATOR_LOCK, async () => {
    const [row] = await deps.database.db.select({ n: count() }).from(accounts);
    return insertAccountWithToken(deps.database.db, { name, isAdmin: (row?.n ?? 0) === 0 });
  });
}

/** The operator's `tokens create --user`: a new token for any account. */
export async function createTokenAsOperator(deps: SystemDeps, input: { userId: unknown; name?: string }): Promise<IssuedToken> {
  const { userId, name } = parseInput(OperatorTokenInput, input);
  const [row] = await deps.database.db.select({ id: accounts.id }).from(accounts).where(eq(accounts.id, userId));
  if (!row) throw notFound(`No account ${userId}`, 'account');
  return insertToken(deps.database.db, userId, name, null);
}

/** On the very first start (no account at all) creates the admin account; undefined otherwise. */
export async function bootstrapFirstAccount(deps: SystemDeps): Promise<NewAccount | undefined> {
  return deps.database.withAdvisoryLock(OPERATOR_LOCK, async () => {
    const [row] = await deps.database.db.select({ n: count() }).from(accounts);
    if ((row?.n ?? 0) > 0) return undefined;
    return insertAccountWithToken(deps.database.db, { name: 'admin', isAdmin: true });
  });
}
