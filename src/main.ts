import { setFlagsFromString } from 'node:v8';
import { loadConfig } from './env.js';
import { createLogger } from './logger.js';
import { exitOnStopSignals } from './shutdown.js';

// PGlite's WebAssembly (9 MB) is compiled at every start. By default V8 also recompiles every
// function that runs a little during PGlite's own start with its optimising compiler, in the
// background: on 2 cores that was ~40 MB more memory at start and idle and a slower start, for
// functions most of which never run again. With a 100× larger budget only the functions that stay
// hot under real load are optimised (docs/PERFORMANCE.md, Memory). Set before PGlite compiles.
setFlagsFromString('--wasm-tiering-budget=180000000');

const config = loadConfig();
const logger = createLogger(config.LOG_LEVEL);

// The database opens while the rest of the service's code loads: PGlite reads and compiles its
// WebAssembly partly off the main thread, so the two overlap instead of adding up.
const opening = import('./db/index.js').then(({ openDatabase }) => openDatabase({ databaseUrl: config.DATABASE_URL, dataDir: config.DATA_DIR }));
const started = Promise.all([opening, import('./service.js')]).then(([database, { startService }]) => startService(config, logger, { database }));
// Listening before the start finishes: a signal during it stops the service as soon as it is up,
// instead of killing the process half-way through a migration.
exitOnStopSignals(async () => (await started).stop(), logger);
try {
  await started;
} catch (err) {
  logger.fatal({ err }, 'could not start');
  process.exit(1);
}
