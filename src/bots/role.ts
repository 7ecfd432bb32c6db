import type { SystemDeps } from '../services/context.js';
import type { RunningTelegramBot } from './telegram/index.js';

export interface BotsRole {
  telegram?: RunningTelegramBot;
  stop(): Promise<void>;
}

/** The `bots` role: each bot whose token is set. Discord is not built yet. */
export async function startBotsRole(deps: SystemDeps): Promise<BotsRole> {
  // grammY loads only when a bot token is set.
  const telegram = deps.config.TELEGRAM_BOT_TOKEN ? await (await import('./telegram/index.js')).startTelegramBot(deps) : undefined;
  if (!telegram) deps.logger.info('bots role: TELEGRAM_BOT_TOKEN is not set; no bot started');
  return {
    telegram,
    async stop() {
      await telegram?.stop();
    },
  };
}
