import { z } from 'zod';
import { createLogger } from '../logger.js';
import { createSimulator } from './index.js';
import { loadScenario } from './schemas.js';

const Env = z.object({
  SIMULATOR_PORT: z.coerce.number().int().min(0).max(65_535).default(3100),
  SIMULATOR_HOST: z.string().min(1).default('127.0.0.1'),
  SIMULATOR_SEED: z.coerce.number().int().default(1),
  SIMULATOR_RANDOM_WALK: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
  SIMULATOR_TICK_MS: z.coerce.number().int().min(10).default(500),
  SIMULATOR_SCENARIO: z.string().min(1).optional(),
  LOG_LEVEL: z.string().default('info'),
});

async function main(): Promise<void> {
  const parsed = Env.safeParse(process.env);
  if (!parsed.success) {
    console.error(`Bad simulator settings: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`);
    process.exit(1);
  }
  const env = parsed.data;
  const logger = createLogger(env.LOG_LEVEL);
  const scenario = await loadScenario(env.SIMULATOR_SCENARIO);
  const sim = createSimulator({
    port: env.SIMULATOR_PORT,
    host: env.SIMULATOR_HOST,
    seed: env.SIMULATOR_SEED,
    randomWalk: env.SIMULATOR_RANDOM_WALK,
    tickIntervalMs: env.SIMULATOR_TICK_MS,
    logger,
    ...(scenario ? { scenario } : {}),
  });
  const urls = await sim.start();
  console.log(`GAMMA_URL=${urls.gammaUrl}\nCLOB_URL=${urls.clobUrl}\nCLOB_WS_URL=${urls.clobWsUrl}\ncontrol: ${urls.controlUrl}`);
  const shutdown = () => void sim.stop().then(() => process.exit(0));
  process.once('SIGINT', shutdown);
  process.once('SIGTERM', shutdown);
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
