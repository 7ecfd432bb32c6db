import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import type { Logger } from '../logger.js';
import type { DeliveryHandoff } from './handoff.js';
import { sendersFromConfig } from './senders/index.js';
import { startDeliveryWorker } from './worker.js';

/** The `worker` role: senders built from the settings, and one delivery worker. */
export async function startWorkerRole({
  database,
  config,
  logger,
  handoff,
}: {
  database: Database;
  config: Config;
  logger: Logger;
  /** The engine of this process hands its new deliveries to this worker (handoff.ts). */
  handoff?: DeliveryHandoff;
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
    ...(handoff ? { handoff } : {}),
  });
  return worker;
}
