// A delivery worker in a process of its own, for `npm run bench -- delivery --child=1`:
// BENCH_DATABASE_URL and BENCH_CONCURRENCY from the parent; "ready" on stdout once listening,
// stops (waiting for its sends) when stdin closes.
import { openDatabase } from '../src/db/client.js';
import { createSenders } from '../src/delivery/senders/index.js';
import { startDeliveryWorker } from '../src/delivery/worker.js';
import { createLogger } from '../src/logger.js';

const database = await openDatabase({ databaseUrl: process.env.BENCH_DATABASE_URL, maxConnections: 10 });
const worker = await startDeliveryWorker({
  database,
  senders: createSenders({ allowPrivateUrls: true, timeoutMs: 5000 }),
  logger: createLogger('warn'),
  config: { WEBHOOK_RETRY_DELAY_MS: 1000, PUBLIC_URL: undefined, WEBHOOK_SECRET_GRACE_MS: 86_400_000, ENDPOINT_DISABLE_AFTER_MS: 86_400_000, ENDPOINT_DISABLE_MIN_NOTIFICATIONS: 10 },
  concurrency: Number(process.env.BENCH_CONCURRENCY ?? 64),
  workerId: `bench-child-${process.pid}`,
});
process.stdout.write('ready\n');
process.stdin.resume();
process.stdin.on('end', () => {
  void worker
    .stop()
    .then(() => database.close())
    .then(() => process.exit(0));
});
