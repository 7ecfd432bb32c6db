import { setFlagsFromString } from 'node:v8';
import { loadConfig } from './env.js';
import { createLogger } from './logger.js';
import { exitOnStopSignals } from './shutdown.js';
import { compilePgliteWasm } from './db/pglite-wasm.js';
import { keepLoopWaitingFor } from './start-loop.js';

// PGlite's WebAssembly (9 MB) is compiled at every start. By default V8 also recompiles every
// function that runs a little during PGlite's own start with its optimising compiler, in the
// background: on 2 cores that was ~40 MB more memory at start and idle and a slower start, for
// functions most of which never run again. With a 100× larger budget only the functions that stay
// hot under real load are optimised (docs/PERFORMANCE.md, Memory). Set before PGlite compiles.
setFlagsFromString('--wasm-tiering-budget=180000000');

const config = loadConfig();
const logger = createLogger(config.LOG_LEVEL);

// PGlite's folder opens first, and the rest of the service's code loads while it does: PGlite reads
// and compiles its WebAssembly partly off the main thread, so the two overlap instead of adding up.
// Its opening module needs neither drizzle nor the schema; importing the service's code before the
// open started held it back by that whole load (docs/PERFORMANCE.md, Start time). Its WebAssembly
// starts compiling before even that module loads.
const wasm = config.DATABASE_URL ? undefined : compilePgliteWasm();
const folder = config.DATABASE_URL ? undefined : import('./db/pglite-folder.js');
const pglite = folder?.then(({ openPgliteFolder }) => openPgliteFolder(config.DATA_DIR, true, wasm));
// Awaited only once the code has loaded: a failed open must not count as unhandled meanwhile (Node
// would end the process with a bare stack instead of the "could not start" line below).
pglite?.catch(() => {});
const started = (async () => {
  await folder; // and so the open has begun
  const [{ openDatabase }, { preloadRoles, startService }] = await Promise.all([import('./db/index.js'), import('./service.js')]);
  preloadRoles(config);
  const database = await openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR, pglite: await pglite });
  return startService(config, logger, { database });
})();
keepLoopWaitingFor(started);
// Listening before the start finishes: a signal during it stops the service as soon as it is up,
// instead of killing the process half-way through a migration.
exitOnStopSignals(async () => (await started).stop(), logger);
try {
  await started;
} catch (err) {
  logger.fatal({ err }, 'could not start');
  process.exit(1);
}
