import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import type { Logger } from '../logger.js';
import { sendersFromConfig } from './senders/index.js';
import { startDeliveryWorker } from './worker.js';

/** The `worker` role: senders built from the settings, and one delivery worker. */
export async function startWorkerRole({
  database,
  config,
  logger,
}: {
  database: Database;
  config: Config;
  logger: Logger;
}): Promise<{ stop(): Promise<void> }> {
  const senders = sendersFromConfig(config);
  const worker = await startDeliveryWorker({
    database,
    senders,
    config,
    logger: logger.child({ role: 'worker' }),
    concurrency: config.DELIVERY_CONCURRENCY,
    // A lease outlives the longest send (a Discord one: ownership lookup, then post, each up to the
    // timeout) with room to record the result.
    leaseMs: Math.max(30_000, config.WEBHOOK_TIMEOUT_MS * 3),
  });
  return worker;
}
