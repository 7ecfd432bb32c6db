import { loadConfig } from './env.js';
import { createLogger } from './logger.js';
import { startService } from './service.js';

const config = loadConfig();
const logger = createLogger(config.LOG_LEVEL);

try {
  const service = await startService(config, logger);
  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    await service.stop();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
} catch (err) {
  logger.fatal({ err }, 'could not start');
  process.exit(1);
}
