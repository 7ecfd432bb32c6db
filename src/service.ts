import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import type { Config } from './config.js';
import { migrate, MIGRATIONS_FOLDER, migrationsApplied, openDatabase, type Database } from './db/index.js';
import { startAnalyze } from './db/pglite-analyze.js';
import { startCheckpoints } from './db/pglite-checkpoints.js';
import type { Logger } from './logger.js';
import { createApp } from './http/app.js';
import { startAdminEndpoint, type AdminEndpoint } from './admin/server.js';
import type { SyncRole } from './catalog/role.js';
import { bootstrapFirstAccount } from './services/accounts/index.js';
import { startVenue, type VenueEndpoints } from './venue/start.js';
import type { BotStatus } from './bots/supervisor.js';
import { DeliveryHandoff } from './delivery/handoff.js';

export interface RunningService {
  database: Database;
  /** Base URL of the REST API when the `api` role runs. */
  url?: string;
  venue: VenueEndpoints;
  stop(): Promise<void>;
}

async function expectedMigrations(): Promise<number> {
  const journal = JSON.parse(await readFile(`${MIGRATIONS_FOLDER}/meta/_journal.json`, 'utf8')) as { entries: unknown[] };
  return journal.entries.length;
}

// Role modules load only when their role runs: bots and the engine pull in large libraries.
const roleModules = {
  bots: () => import('./bots/role.js'),
  engine: () => import('./runner/role.js'),
  worker: () => import('./delivery/role.js'),
  sync: () => import('./catalog/role.js'),
};

/**
 * Starts loading the modules of the roles `config` runs, for `startService` to find loaded: main.ts
 * calls it while PGlite opens, whose WebAssembly compiles off the main thread, so the load fills
 * that wait instead of following the open. Failures are left to `startService`'s own import.
 */
export function preloadRoles(config: Pick<Config, 'ROLES'>): void {
  for (const role of config.ROLES) if (role in roleModules) void roleModules[role as keyof typeof roleModules]().catch(() => {});
  // Node loads `fetch`'s library (undici) on its first use: 25–50 ms of the main thread, which the
  // catalog sync's first request paid during the start. Reading the global loads it now.
  if (config.ROLES.has('sync') || config.ROLES.has('engine')) void globalThis.fetch;
}

export interface StartOptions {
  /** An already open database to run on instead of the configured one (tests; main.ts opens it early); closed by stop(). */
  database?: Database;
}

/** Opens the database, migrates, and starts the roles this process runs. */
export async function startService(config: Config, logger: Logger, options: StartOptions = {}): Promise<RunningService> {
  const started = Date.now();
  const database = options.database ?? (await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR }));
  const stops: (() => Promise<void>)[] = [];
  // Stopped first, before the roles drain: whatever brings new work in (REST, admin, live streams).
  const intake: (() => Promise<void>)[] = [];
  try {
    await migrate(database);
    const deps = { database, config, logger };
    const first = await bootstrapFirstAccount(deps);
    if (first) {
      // Printed once, on the first start with an empty database, so a newcomer can call the API.
      process.stdout.write(
        `\n  ★ Oddswatch first start: admin account ${first.userId}\n  ★ API token (shown once): ${first.token}\n\n`,
      );
      logger.info({ userId: first.userId }, 'created the first account; its token was printed above');
    }

    // Catalog: the venue (or the in-process simulator); the sync role starts last, see below.
    const venue = await startVenue(config, logger);
    stops.push(() => venue.stop());

    // Bots before the API: in webhook mode the API server carries the Telegram webhook route.
    // The role returns at once; each bot connects in the background and shows its state in /readyz.
    const bots = config.ROLES.has('bots') ? await (await roleModules.bots()).startBotsRole(deps) : undefined;
    if (bots) stops.push(() => bots.stop());
    const webhook = bots?.telegram?.webhook;
    if (webhook && !config.ROLES.has('api')) logger.warn('TELEGRAM_WEBHOOK_URL is set but this process runs no api role to receive it');
    const discordInteractions = bots?.discordInteractions;
    if (discordInteractions && !config.ROLES.has('api')) logger.warn('DISCORD_PUBLIC_KEY is set but this process runs no api role to receive interactions');

    // Started after the API (which reads it lazily): the feed lag shows once the engine runs.
    let engine: import('./runner/role.js').EngineRole | undefined;
    let url: string | undefined;
    if (config.ROLES.has('api')) {
      const expected = await expectedMigrations();
      const api = createApp({
        ...deps,
        webhooks: [...(webhook ? [webhook] : []), ...(discordInteractions ? [discordInteractions] : [])],
        readiness: async () => {
          // A bot that is down degrades chat commands only: shown here, never a reason to be unready.
          const shown = { ...(bots ? { bots: botDetails(bots.status()) } : {}), ...(engine ? { feed: engine.feedLag() } : {}) };
          const details = Object.keys(shown).length > 0 ? { details: shown } : {};
          return (await migrationsApplied(database, expected)) ? { ready: true, ...details } : { ready: false, reason: 'migrations pending', ...details };
        },
        metricSources: {
          ...(bots ? { bots: () => bots.status() } : {}),
          ...(config.ROLES.has('engine') ? { feed: () => engine?.feedLag() ?? [] } : {}),
        },
      });
      const server: Server = await new Promise((resolve, reject) => {
        const s = api.app.listen(config.PORT, config.HOST, () => resolve(s));
        s.once('error', reject);
      });
      const { port } = server.address() as AddressInfo;
      url = `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${port}`;
      intake.push(() => api.close()); // before the server: open streams would hold its close
      intake.push(() => closeServer(server));
    }
    // Engine and worker in one process: the firing writes hand their deliveries straight to the
    // worker after the commit (no notice wake-up, no claim; docs/delivery.md "Hand-off").
    const handoff = config.ROLES.has('engine') && config.ROLES.has('worker') ? new DeliveryHandoff() : undefined;
    if (config.ROLES.has('engine')) {
      const { startEngineRole } = await roleModules.engine();
      const started = await startEngineRole({ ...deps, clobUrl: venue.clobUrl, clobWsUrl: venue.clobWsUrl, ...(handoff ? { handoff } : {}) });
      engine = started;
      stops.push(() => started.stop());
    }
    if (config.ROLES.has('worker')) {
      const { startWorkerRole } = await roleModules.worker();
      const worker = await startWorkerRole({ ...deps, ...(handoff ? { handoff } : {}) });
      stops.push(() => worker.stop());
    }
    // The sync starts after the other roles: its first pass (hundreds of upserts on PGlite's one
    // connection) would otherwise hold up every query of their start by about a second. The API
    // and the engine read the catalog already stored and take the pass's changes when they land.
    // The admin endpoint before it: the sync's first tick takes PGlite's one thread at once, and
    // the endpoint's start (and so the "started" line) would wait behind it (~20–30 ms here).
    let syncStarted: (role: SyncRole) => void = () => {};
    const syncRole = new Promise<SyncRole>((resolve) => (syncStarted = resolve));
    if (database.kind === 'pglite') {
      const syncOnce = config.ROLES.has('sync') ? async () => (await syncRole).syncOnce() : undefined;
      const admin: AdminEndpoint = await startAdminEndpoint(deps, config.DATA_DIR, { syncOnce });
      intake.unshift(() => admin.close());
      const analyze = startAnalyze(database, { logger });
      stops.unshift(() => analyze.stop());
      const checkpoints = startCheckpoints(database, { logger });
      // Stopped last (stops run from the end): the other roles' final writes are checkpointed meanwhile.
      stops.unshift(() => checkpoints.stop());
    }
    const sync = config.ROLES.has('sync') ? (await roleModules.sync()).startSyncRole({ ...deps, gammaUrl: venue.gammaUrl }) : undefined;
    if (sync) {
      stops.push(() => sync.stop());
      syncStarted(sync);
    }
    logger.info({ url, roles: [...config.ROLES], database: database.kind, startMs: Date.now() - started, processMs: Math.round(process.uptime() * 1000) }, 'Oddswatch started');
    return {
      database,
      url,
      venue,
      async stop() {
        for (const stop of [...intake, ...stops.reverse()]) await stop().catch((err) => logger.error({ err }, 'stop step failed'));
        await database.close();
        logger.info('Oddswatch stopped');
      },
    };
  } catch (err) {
    for (const stop of [...intake, ...stops.reverse()]) await stop().catch(() => {});
    await database.close();
    throw err;
  }
}

function botDetails(statuses: BotStatus[]) {
  return Object.fromEntries(statuses.map(({ platform, ...rest }) => [platform, rest]));
}

function closeServer(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // Idle keep-alive sockets would hold close() open; in-flight requests get 3 s to finish, a
    // slice of the 10 s shutdown deadline (src/shutdown.ts) that leaves the roles time to drain.
    server.closeIdleConnections();
    setTimeout(() => server.closeAllConnections(), 3_000).unref();
  });
}
