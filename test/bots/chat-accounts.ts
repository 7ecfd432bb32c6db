import type { Logger } from '../../src/logger.js';
import { findOrCreateChatAccount } from '../../src/services/accounts/index.js';
import type { ServiceContext } from '../../src/services/context.js';
import { createToken } from '../../src/services/tokens/index.js';
import type { TestAccount, TestEnv } from '../support/context.js';

/** A chat user's account as the REST helpers take it, with a token, so a rule can be made over REST as a user could. */
export async function restSideOf(env: TestEnv, logger: Logger, kind: 'telegram' | 'discord', userId: string): Promise<TestAccount> {
  const account = await findOrCreateChatAccount(env, { kind, userId });
  const ctx: ServiceContext = { database: env.database, config: env.config, logger, account };
  const { token } = await createToken({ ctx, input: { name: 'test' } });
  return { userId: account.id, token, auth: { Authorization: `Bearer ${token}` }, ctx };
}
