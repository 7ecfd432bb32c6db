import type { SystemDeps } from '../services/context.js';
import type { DiscordBot, InteractionsEndpoint } from './discord/index.js';
import type { RunningTelegramBot } from './telegram/index.js';

export interface BotsRole {
  telegram?: RunningTelegramBot;
  discord?: DiscordBot;
  /** With DISCORD_PUBLIC_KEY: the route Discord POSTs interactions to, for the API server. */
  discordInteractions?: InteractionsEndpoint;
  stop(): Promise<void>;
}

/** The `bots` role: each bot whose settings are present. */
export async function startBotsRole(deps: SystemDeps): Promise<BotsRole> {
  const { config, logger } = deps;
  // Each bot's library (grammY, discord.js) loads only when its token is set.
  const telegram = config.TELEGRAM_BOT_TOKEN ? await (await import('./telegram/index.js')).startTelegramBot(deps) : undefined;
  if (!telegram) logger.info('bots role: TELEGRAM_BOT_TOKEN is not set; no Telegram bot started');
  let discord: DiscordBot | undefined;
  let discordInteractions: InteractionsEndpoint | undefined;
  if (config.DISCORD_TOKEN && config.DISCORD_APPLICATION_ID) {
    const { createDiscordBot, discordInteractionsEndpoint } = await import('./discord/index.js');
    discord = createDiscordBot({
      token: config.DISCORD_TOKEN,
      applicationId: config.DISCORD_APPLICATION_ID,
      apiUrl: config.DISCORD_API_URL,
      guildId: config.DISCORD_GUILD_ID,
      deps,
    });
    await discord.start();
    if (config.DISCORD_PUBLIC_KEY) discordInteractions = discordInteractionsEndpoint(config.DISCORD_PUBLIC_KEY, discord, logger);
  } else {
    logger.info('bots role: DISCORD_TOKEN and DISCORD_APPLICATION_ID are not both set; no Discord bot started');
  }
  return {
    telegram,
    discord,
    discordInteractions,
    async stop() {
      await telegram?.stop();
      await discord?.stop();
    },
  };
}
