import { Client, DiscordAPIError, GatewayIntentBits, HTTPError } from 'discord.js';
import type { Logger } from '../../logger.js';
import { errorText } from '../error-text.js';
import { closeWithin, type BotConnector } from '../supervisor.js';
import type { DiscordBot, RawInteraction } from './bot.js';

export interface DiscordConnectorOptions {
  bot: DiscordBot;
  token: string;
  /** The REST base without /v10 (DISCORD_API_URL); the gateway's address comes from it. */
  apiUrl?: string;
  /**
   * `gateway`: interactions arrive over a gateway session (one per database, see the supervisor).
   * `http`: Discord POSTs them to /discord/interactions (DISCORD_PUBLIC_KEY), so no gateway
   * session is opened and "connected" means the slash commands are registered.
   */
  mode: 'gateway' | 'http';
  logger: Logger;
}

/** Discord refuses the token: 401 over REST, or discord.js's TokenInvalid from the gateway login. */
function isRefusedToken(err: unknown): boolean {
  if (err instanceof DiscordAPIError || err instanceof HTTPError) return err.status === 401;
  return (err as { code?: unknown } | null)?.code === 'TokenInvalid';
}

function describe(err: unknown, token: string): string {
  // discord.js errors carry the request URL and body; the message and status say enough.
  if (err instanceof DiscordAPIError || err instanceof HTTPError) return errorText(new Error(`Discord answered ${err.status} to ${err.method}: ${err.message}`), [token]);
  return errorText(err, [token]);
}

/** Connects the Discord bot: slash commands over REST first, then (gateway mode) the gateway session. */
export function discordConnector({ bot, token, apiUrl, mode, logger }: DiscordConnectorOptions): BotConnector {
  let registered = false;

  async function register(signal: AbortSignal) {
    if (registered) return;
    try {
      await bot.registerCommands(signal);
      registered = true;
    } catch (err) {
      // Discord answered, but not 401 (a bad guild id, say): the gateway may still connect. No
      // answer at all fails the attempt, as the login needs the same REST API.
      if (signal.aborted || mode === 'http' || isRefusedToken(err) || !(err instanceof DiscordAPIError)) throw err;
      logger.warn({ error: describe(err, token) }, 'discord: registering the slash commands failed; retried at the next connect');
    }
  }

  return {
    platform: 'discord',
    mode,
    isFatal: isRefusedToken,
    describe: (err) => describe(err, token),
    async connect(signal, events) {
      await register(signal);
      if (mode === 'http') return { ended: new Promise(() => {}), close: async () => {} };

      // The supervisor retries with its own backoff, so discord.js's REST retries are off here.
      const client = new Client({ intents: [GatewayIntentBits.Guilds], rest: { retries: 0, ...(apiUrl ? { api: apiUrl } : {}) } });
      // The raw gateway packet is exactly the shape handleInteraction takes (as a webhook would deliver it).
      client.on('raw', (packet: { t?: string; d?: unknown }) => {
        if (packet.t === 'INTERACTION_CREATE') void bot.handleInteraction(packet.d as RawInteraction);
      });
      client.on('shardDisconnect', (event) => events.degraded(new Error(`gateway connection closed (${event.code}); discord.js reconnects`)));
      client.on('shardResume', () => events.restored());
      client.on('error', (err) => events.degraded(err)); // unhandled, an 'error' event would throw
      client.on('shardReady', () => events.restored());
      const ready = new Promise<void>((resolve) => client.once('clientReady', () => resolve()));
      const ended = new Promise<Error>((resolve) => client.once('invalidated', () => resolve(new Error('the gateway session was invalidated'))));
      const aborted = new Promise<never>((_, reject) => {
        const fail = () => reject(new Error('connect aborted'));
        if (signal.aborted) fail();
        else signal.addEventListener('abort', fail, { once: true });
      });
      const close = () => closeWithin(2000, () => client.destroy());
      try {
        await Promise.race([client.login(token).then(() => ready), aborted]);
      } catch (err) {
        await close();
        throw err;
      }
      logger.info({ username: client.user?.username }, 'discord bot started');
      return { ended, close };
    },
  };
}
