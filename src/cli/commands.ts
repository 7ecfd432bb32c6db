import type { Config } from '../config.js';
import { migrate, openDatabase, type Database } from '../db/index.js';
import type { Logger } from '../logger.js';
import { createAccountAsOperator, createTokenAsOperator } from '../services/accounts/index.js';
import { syncUnderLock } from '../catalog/index.js';
import { createGammaClient } from '../venue/gamma/client.js';
import { startVenue } from '../venue/start.js';
import { findRunningService, type AdminClient } from './admin-client.js';

export interface CommandEnv {
  config: Config;
  logger: Logger;
  options: Record<string, string | true>;
}

type Runner = (env: CommandEnv, via: Via) => Promise<unknown>;
type Via = { kind: 'service'; admin: AdminClient } | { kind: 'database'; database: Database };

export const COMMANDS: Record<string, { usage: string; run: Runner }> = {
  'accounts create': {
    usage: 'accounts create [--name <name>] [--json]',
    run: async ({ config, logger, options }, via) => {
      const input = typeof options.name === 'string' ? { name: options.name } : {};
      return via.kind === 'service'
        ? via.admin.call('/accounts', input)
        : createAccountAsOperator({ database: via.database, config, logger }, input);
    },
  },
  'tokens create': {
    usage: 'tokens create --user <userId> [--name <name>] [--json]',
    run: async ({ config, logger, options }, via) => {
      if (typeof options.user !== 'string') throw new Error('tokens create needs --user <userId>');
      const input = { userId: options.user, name: typeof options.name === 'string' ? options.name : undefined };
      const issued = via.kind === 'service'
        ? ((await via.admin.call('/tokens', input)) as { id: string; token: string })
        : await createTokenAsOperator({ database: via.database, config, logger }, input);
      return { userId: options.user, tokenId: issued.id, token: issued.token };
    },
  },
  migrate: {
    usage: 'migrate',
    run: async (_env, via) => {
      if (via.kind === 'service') return via.admin.call('/migrate', {});
      await migrate(via.database);
      return { message: 'migrations applied' };
    },
  },
  'sync-once': {
    usage: 'sync-once',
    run: async ({ config, logger }, via) => {
      if (via.kind === 'service') return via.admin.call('/sync-once', {});
      const venue = await startVenue(config, logger);
      try {
        const gamma = createGammaClient({ baseUrl: venue.gammaUrl, logger, timeoutMs: 15_000 });
        return await syncUnderLock({ database: via.database, gamma, logger, maxEventsPerWatchlist: config.MAX_EVENTS_PER_WATCHLIST });
      } finally {
        await venue.stop();
      }
    },
  },
};

/** Runs a command through the running service when it holds the PGlite folder, else directly. */
export async function runCommand(name: string, env: CommandEnv): Promise<unknown> {
  const command = COMMANDS[name];
  if (!command) throw new Error(`Unknown command "${name}". Commands:\n  ${Object.values(COMMANDS).map((c) => c.usage).join('\n  ')}`);
  if (!env.config.DATABASE_URL) {
    const admin = await findRunningService(env.config.DATA_DIR);
    if (admin) return command.run(env, { kind: 'service', admin });
  }
  const database = await openDatabase({ databaseUrl: env.config.DATABASE_URL, dataDir: env.config.DATA_DIR, maxConnections: 2 });
  try {
    if (name !== 'migrate') await migrate(database);
    return await command.run(env, { kind: 'database', database });
  } finally {
    await database.close();
  }
}
