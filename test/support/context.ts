import type { Express } from 'express';
import supertest from 'supertest';
import { parseConfig, type Config } from '../../src/config.js';
import type { Database } from '../../src/db/index.js';
import { createApp, type AppDeps } from '../../src/http/app.js';
import { createLogger } from '../../src/logger.js';
import { insertAccountWithToken } from '../../src/services/accounts/index.js';
import type { ServiceContext } from '../../src/services/context.js';
import { createTestDatabase } from './db.js';

export const TEST_SETTINGS = {
  ALLOW_PRIVATE_URLS: 'true',
  LOG_LEVEL: 'silent',
  RATE_LIMIT_PER_MINUTE: '100000',
  SEARCH_RATE_LIMIT_PER_MINUTE: '100000',
};

export interface TestAccount {
  userId: string;
  token: string;
  auth: { Authorization: string };
  ctx: ServiceContext;
}

export interface TestEnv {
  database: Database;
  /** PostgreSQL: the URL of this test's database (a second handle = a second process). */
  databaseUrl: string | undefined;
  config: Config;
  /** The express app itself, for tests that need a listening server (streams). */
  app: Express;
  http: ReturnType<typeof supertest.agent>;
  newAccount(opts?: { isAdmin?: boolean }): Promise<TestAccount>;
  close(): Promise<void>;
}

/** A database of the file's own, the real app over it, and a way to make accounts. */
export async function createTestEnv(
  settings: Record<string, string> = {},
  /** Test-only app options: the stream's pace, and `now`, the app's clock where time is the subject (testClock in wait.ts). */
  options: Pick<AppDeps, 'streamTiming' | 'now'> = {},
): Promise<TestEnv> {
  const database = await createTestDatabase();
  const config = parseConfig({ ...TEST_SETTINGS, ...settings });
  const logger = createLogger(process.env.TEST_LOG_LEVEL ?? 'silent');
  // The app as src/service.ts builds it: the whole route table, no bot webhooks.
  const { app: express, close: closeApp } = createApp({ config, database, logger, readiness: async () => ({ ready: true }), ...options });
  return {
    database,
    databaseUrl: database.url,
    config,
    app: express,
    http: supertest.agent(express),
    async newAccount(opts = {}) {
      const { userId, token } = await insertAccountWithToken(database.db, { isAdmin: opts.isAdmin });
      const ctx: ServiceContext = {
        database,
        config,
        logger,
        account: { id: userId, isAdmin: opts.isAdmin ?? false },
      };
      return { userId, token, auth: { Authorization: `Bearer ${token}` }, ctx };
    },
    async close() {
      await closeApp();
      await database.drop();
    },
  };
}
