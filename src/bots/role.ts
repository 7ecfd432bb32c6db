import { BOT_LOCKS } from '../db/coordination.js';
import type { SystemDeps } from '../services/context.js';
import type { DiscordBot, InteractionsEndpoint } from './discord/index.js';
import { superviseBot, type BotConnector, type BotStatus, type BotTiming, type SupervisedBot } from './supervisor.js';
import type { TelegramBotEndpoint } from './telegram/index.js';

export interface BotsRole {
  telegram?: Omit<TelegramBotEndpoint, 'connector'>;
  discord?: DiscordBot;
  /** With DISCORD_PUBLIC_KEY: the route Discord POSTs interactions to, for the API server. */
  discordInteractions?: InteractionsEndpoint;
  /** Each started bot's connection state, for /readyz and /metrics. */
  status(): BotStatus[];
  stop(): Promise<void>;
}

export interface BotsRoleOptions {
  /** Backoff and holder timings (tests shorten them). */
  timing?: Partial<BotTiming>;
}

/**
 * The `bots` role: each bot whose settings are present. It returns at once: every bot connects in
 * the background (see supervisor.ts), so a chat platform that is down or refuses the token never
 * holds up the service. A polling or gateway connection is made by one process per database;
 * webhook modes (Telegram's webhook, Discord's HTTP interactions) are served by every process.
 */
export async function startBotsRole(deps: SystemDeps, options: BotsRoleOptions = {}): Promise<BotsRole> {
  const { config, database, logger } = deps;
  const supervised: SupervisedBot[] = [];
  // The holder locks live on a session of their own, so a holder whose session died finds out.
  const locks = database.lockSession();
  const supervise = (connector: BotConnector, needsHolder: boolean) =>
    supervised.push(
      superviseBot({
        connector,
        logger,
        timing: options.timing,
        ...(needsHolder ? { acquire: () => locks.tryLock(BOT_LOCKS[connector.platform]) } : {}),
      }),
    );

  // Each bot's library (grammY, discord.js) loads only when its token is set.
  let telegram: BotsRole['telegram'];
  if (config.TELEGRAM_BOT_TOKEN) {
    const { connector, ...endpoint } = (await import('./telegram/index.js')).createTelegramEndpoint(deps);
    telegram = endpoint;
    supervise(connector, connector.mode === 'polling');
  } else {
    logger.info('bots role: TELEGRAM_BOT_TOKEN is not set; no Telegram bot started');
  }

  let discord: DiscordBot | undefined;
  let discordInteractions: InteractionsEndpoint | undefined;
  if (config.DISCORD_TOKEN && config.DISCORD_APPLICATION_ID) {
    const { createDiscordBot, discordConnector, discordInteractionsEndpoint } = await import('./discord/index.js');
    discord = createDiscordBot({
      token: config.DISCORD_TOKEN,
      applicationId: config.DISCORD_APPLICATION_ID,
      apiUrl: config.DISCORD_API_URL,
      guildId: config.DISCORD_GUILD_ID,
      deps,
    });
    const mode = config.DISCORD_PUBLIC_KEY ? 'http' : 'gateway';
    if (config.DISCORD_PUBLIC_KEY) discordInteractions = discordInteractionsEndpoint(config.DISCORD_PUBLIC_KEY, discord, logger);
    const connector = discordConnector({ bot: discord, token: config.DISCORD_TOKEN, apiUrl: config.DISCORD_API_URL, mode, logger: logger.child({ component: 'discord-bot' }) });
    supervise(connector, mode === 'gateway');
  } else {
    logger.info('bots role: DISCORD_TOKEN and DISCORD_APPLICATION_ID are not both set; no Discord bot started');
  }

  return {
    telegram,
    discord,
    discordInteractions,
    status: () => supervised.map((s) => s.status()),
    async stop() {
      await Promise.all(supervised.map((s) => s.stop()));
      await locks.close();
    },
  };
}
