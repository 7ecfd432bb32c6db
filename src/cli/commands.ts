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

export interface Command {
  usage: string;
  /** One line for `--help`. */
  summary: string;
  run: Runner;
}

export const COMMANDS: Record<string, Command> = {
  'accounts create': {
    usage: 'accounts create [--name <name>] [--json]',
    summary: 'Create an account and its first API token (the token is shown once)',
    run: async ({ config, logger, options }, via) => {
      const input = typeof options.name === 'string' ? { name: options.name } : {};
      return via.kind === 'service'
        ? via.admin.call('/accounts', input)
        : createAccountAsOperator({ database: via.database, config, logger }, input);
    },
  },
  'tokens create': {
    usage: 'tokens create --user <userId> [--name <name>] [--json]',
    summary: 'Create another API token for an account',
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
    usage: 'migrate [--json]',
    summary: 'Apply the database migrations (the service also does at start)',
    run: async (_env, via) => {
      if (via.kind === 'service') return via.admin.call('/migrate', {});
      await migrate(via.database);
      return { message: 'migrations applied' };
    },
  },
  'sync-once': {
    usage: 'sync-once [--json]',
    summary: "Run one catalog sync pass now, instead of waiting for the next (SYNC_INTERVAL_MS)",
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

/** What `--help` prints: every command with its one line, then the settings flags. */
export function helpText(): string {
  const commands = Object.values(COMMANDS);
  const width = Math.max(...commands.map((c) => c.usage.length));
  return [
    'Usage: npm run -s cli -- <command> [options]   (or the package\'s `oddswatch` bin)',
    '',
    'Commands:',
    ...commands.map((c) => `  ${c.usage.padEnd(width)}  ${c.summary}`),
    '',
    'Options:',
    '  --json              print only JSON on stdout, one line (logs and errors go to stderr)',
    '  --help              this help',
    '  --<setting>         any setting in kebab case, e.g. --data-dir ./data, --database-url postgres://…',
    '',
    'Every command works whether or not a service runs on the same DATA_DIR (it then asks the service).',
  ].join('\n');
}

/** The command named by the first words of the command line, or undefined. */
export function commandName(words: string[]): string | undefined {
  for (const n of [2, 1]) {
    const name = words.slice(0, n).join(' ');
    if (words.length >= n && COMMANDS[name]) return name;
  }
  return undefined;
}

/** Runs a command through the running service when it holds the PGlite folder, else directly. */
export async function runCommand(name: string, env: CommandEnv): Promise<unknown> {
  const command = COMMANDS[name];
  if (!command) throw new Error(`Unknown command "${name}"`);
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
