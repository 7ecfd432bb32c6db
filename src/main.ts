import { loadConfig } from './env.js';
import { createLogger } from './logger.js';
import { startService } from './service.js';
import { exitOnStopSignals } from './shutdown.js';

const config = loadConfig();
const logger = createLogger(config.LOG_LEVEL);

const started = startService(config, logger);
// Listening before the start finishes: a signal during it stops the service as soon as it is up,
// instead of killing the process half-way through a migration.
exitOnStopSignals(async () => (await started).stop(), logger);
try {
  await started;
} catch (err) {
  logger.fatal({ err }, 'could not start');
  process.exit(1);
}
