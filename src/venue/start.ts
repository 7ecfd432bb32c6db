import type { Config } from '../config.js';
import type { Logger } from '../logger.js';

export interface VenueEndpoints {
  gammaUrl: string;
  clobUrl: string;
  clobWsUrl: string;
  /** The simulator's control endpoints, when it runs in this process. */
  controlUrl?: string;
  stop(): Promise<void>;
}

/** The venue's URLs: the configured ones, or those of an in-process simulator (VENUE=simulator). */
export async function startVenue(config: Config, logger: Logger): Promise<VenueEndpoints> {
  if (config.VENUE !== 'simulator') {
    return { gammaUrl: config.GAMMA_URL, clobUrl: config.CLOB_URL, clobWsUrl: config.CLOB_WS_URL, stop: async () => {} };
  }
  const { createSimulator, loadScenario } = await import('../simulator/index.js');
  const scenario = await loadScenario(config.SIMULATOR_SCENARIO);
  const sim = createSimulator({
    port: config.SIMULATOR_PORT,
    seed: config.SIMULATOR_SEED,
    randomWalk: config.SIMULATOR_RANDOM_WALK,
    tickIntervalMs: 500,
    logger: logger.child({ component: 'simulator' }),
    ...(scenario ? { scenario } : {}),
  });
  const urls = await sim.start();
  return { ...urls, stop: () => sim.stop() };
}
