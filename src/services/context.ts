import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import type { Logger } from '../logger.js';

export type Caller =
  | { kind: 'apiToken'; tokenId: string }
  | { kind: 'discord'; discordUserId: string }
  | { kind: 'telegram'; telegramUserId: string }
  | { kind: 'system' };

export interface AccountRef {
  id: string;
  isAdmin: boolean;
}

/** What every service function knows about its call: who, on which database, with what limits. */
export interface ServiceContext {
  database: Database;
  config: Config;
  logger: Logger;
  caller: Caller;
  account: AccountRef;
  requestId?: string;
}

/** Dependencies of services that act before an account is known (authentication, bootstrap). */
export type SystemDeps = Pick<ServiceContext, 'database' | 'config' | 'logger'>;
