import type { Config } from '../config.js';
import type { Database, Queryable, Tx } from '../db/client.js';
import type { Logger } from '../logger.js';

export interface AccountRef {
  id: string;
  isAdmin: boolean;
}

/** What every service function knows about its call: who, on which database, with what limits. */
export interface ServiceContext {
  database: Database;
  config: Config;
  /**
   * Bound by the transport to its request: pino-http's `req` (with the X-Request-Id), Telegram's
   * `telegramUpdateId`, Discord's `discordInteractionId`. Every line a service logs carries it.
   */
  logger: Logger;
  /**
   * The API token a REST call came with (absent for chat and system calls): the notification
   * stream ends its streams when that token is revoked. Who acts is `account`.
   */
  apiTokenId?: string;
  account: AccountRef;
  /** The transaction a use case opened; verbs called with it join it instead of opening their own. */
  tx?: Tx;
}

/** Dependencies of services that act before an account is known (authentication, bootstrap). */
export type SystemDeps = Pick<ServiceContext, 'database' | 'config' | 'logger'>;

/** A context bound to an open transaction: pass it to other verbs so they write in the same one. */
export type TxContext<C extends Pick<ServiceContext, 'database'> = ServiceContext> = C & { tx: Tx };

/**
 * Runs `fn` in the context's transaction when it has one, or in a new one. A use case made of several
 * verbs calls them with the context it gets here, so their writes commit or roll back together.
 */
export async function withTransaction<C extends Pick<ServiceContext, 'database' | 'tx'>, T>(
  ctx: C,
  fn: (tx: Tx, txCtx: TxContext<C>) => Promise<T>,
): Promise<T> {
  if (ctx.tx) return fn(ctx.tx, ctx as TxContext<C>);
  return ctx.database.db.transaction((tx) => fn(tx, { ...ctx, tx }));
}

/** Where a read runs: inside the caller's transaction (it sees that transaction's writes), or on the pool. */
export const dbOf = (ctx: Pick<ServiceContext, 'database' | 'tx'>): Queryable => ctx.tx ?? ctx.database.db;
