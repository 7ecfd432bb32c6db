import { Client, DiscordAPIError, GatewayIntentBits, REST, Routes } from 'discord.js';
import type { Logger } from '../../logger.js';
import { findOrCreateChatAccount } from '../../services/accounts/index.js';
import type { ServiceContext, SystemDeps } from '../../services/context.js';
import { findMarket, searchByKeyphrases } from '../../services/search/index.js';
import { listSubscriptions, type Channel } from '../../services/subscriptions/index.js';
import { actionToText, GENERIC_FAILURE, runCommand, type BotReply, type ChatInfo } from '../commands/index.js';
import { describeSubscription } from '../commands/shared.js';
import { DISCORD_COMMANDS, optionsToText, type RawOption } from './commands.js';

export const INTERACTION = { APPLICATION_COMMAND: 2, MESSAGE_COMPONENT: 3, AUTOCOMPLETE: 4 } as const;
export const CALLBACK = { CHANNEL_MESSAGE_WITH_SOURCE: 4, AUTOCOMPLETE_RESULT: 8 } as const;
export const EPHEMERAL = 64;
export const NEED_WEBHOOK_PERMISSION = 'I need the Manage Webhooks permission in this channel to post alerts here';

/** Replies only the caller should see. */
const EPHEMERAL_COMMANDS = new Set(['token', 'alerts', 'inbox', 'watchlists']);
const MAX_TEXT = 2000; // Discord's message limit
const MAX_CHOICES = 25;

/** The raw interaction, as the gateway (INTERACTION_CREATE) or an interactions webhook delivers it. */
export interface RawInteraction {
  id: string;
  token: string;
  type: number;
  application_id?: string;
  guild_id?: string;
  channel_id?: string;
  member?: { user?: { id: string } };
  user?: { id: string };
  data?: { name?: string; options?: RawOption[]; custom_id?: string };
}

export interface DiscordBotOptions {
  token: string;
  applicationId: string;
  /** The REST base without /v10 (DISCORD_API_URL); a local fake in tests. */
  apiUrl?: string;
  /** Register the commands in this guild only (instant; global commands take a while to appear). */
  guildId?: string;
  deps: SystemDeps;
}

export interface DiscordBot {
  rest: REST;
  registerCommands(): Promise<void>;
  handleInteraction(interaction: RawInteraction): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

class NeedsPermission extends Error {}

const WEBHOOK_NAME = 'Oddswatch';
interface Webhook {
  id: string;
  name?: string | null;
  token?: string;
  url?: string;
  application_id?: string | null;
}

function components(reply: BotReply) {
  if (!reply.buttons || reply.buttons.length === 0) return undefined;
  return reply.buttons.slice(0, 5).map((row) => ({
    type: 1,
    components: row.slice(0, 5).map((b) => ({ type: 2, style: 2, label: b.label.slice(0, 80), custom_id: b.action.slice(0, 100) })),
  }));
}

const truncate = (text: string, max: number) => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

/** The Discord transport for the shared command layer: slash commands over REST, answered over REST. */
export function createDiscordBot({ token, applicationId, apiUrl, guildId, deps }: DiscordBotOptions): DiscordBot {
  const rest = new REST(apiUrl ? { api: apiUrl } : {}).setToken(token);
  const webhooks = new Map<string, string>(); // channel id → webhook URL
  let client: Client | undefined;

  async function respond(interaction: RawInteraction, body: object): Promise<void> {
    await rest.post(Routes.interactionCallback(interaction.id, interaction.token), { body, auth: false });
  }

  async function message(interaction: RawInteraction, text: string, ephemeral: boolean, reply?: BotReply): Promise<void> {
    const rows = reply ? components(reply) : undefined;
    await respond(interaction, {
      type: CALLBACK.CHANNEL_MESSAGE_WITH_SOURCE,
      data: { content: truncate(text, MAX_TEXT), ...(ephemeral ? { flags: EPHEMERAL } : {}), ...(rows ? { components: rows } : {}) },
    });
  }

  async function serviceContext(interaction: RawInteraction, log: Logger): Promise<ServiceContext> {
    const discordUserId = interaction.member?.user?.id ?? interaction.user?.id;
    if (!discordUserId) throw new Error('interaction without a user');
    const account = await findOrCreateChatAccount(deps, { kind: 'discord', userId: discordUserId });
    return {
      database: deps.database,
      config: deps.config,
      logger: log,
      caller: { kind: 'discord', discordUserId },
      account,
      requestId: `discord-${interaction.id}`,
    };
  }

  /** A webhook in this guild channel that alerts post to: made once, then remembered. */
  async function channelWebhook(channelId: string): Promise<Channel> {
    let url = webhooks.get(channelId);
    if (!url) {
      try {
        // Reuse ours after a restart (a channel holds at most 15 webhooks); otherwise create one.
        const existing = ((await rest.get(Routes.channelWebhooks(channelId))) as Webhook[]).find(
          (w) => w.name === WEBHOOK_NAME && w.application_id === applicationId && w.token,
        );
        const hook = existing ?? ((await rest.post(Routes.channelWebhooks(channelId), { body: { name: WEBHOOK_NAME } })) as Webhook);
        url = hook.url ?? `https://discord.com/api/webhooks/${hook.id}/${hook.token}`;
      } catch (err) {
        if (err instanceof DiscordAPIError && err.status === 403) throw new NeedsPermission(NEED_WEBHOOK_PERMISSION);
        throw err;
      }
      webhooks.set(channelId, url);
    }
    return { type: 'Discord', settings: { discordWebhookUrl: url } };
  }

  async function run(interaction: RawInteraction, ctx: ServiceContext, text: string): Promise<void> {
    const name = text.split(' ')[0]!;
    const inGuild = Boolean(interaction.guild_id);
    const chat: ChatInfo = { kind: 'discord', chatId: interaction.channel_id ?? '', isPrivate: !inGuild };
    if (name === 'alert' && inGuild && interaction.channel_id) {
      try {
        chat.channel = await channelWebhook(interaction.channel_id);
      } catch (err) {
        if (err instanceof NeedsPermission) return message(interaction, err.message, true);
        throw err;
      }
    }
    const reply = await runCommand(ctx, chat, text);
    // A secret asked for in a guild: an ephemeral reply is already private to the caller.
    const secret = reply.privateMessage ?? (reply.private ? reply.text : undefined);
    if (secret) return message(interaction, secret, true);
    await message(interaction, reply.text, EPHEMERAL_COMMANDS.has(name), reply);
  }

  async function autocomplete(interaction: RawInteraction, ctx: ServiceContext): Promise<void> {
    const focused = interaction.data?.options?.find((o) => o.focused);
    const typed = String(focused?.value ?? '').trim();
    let choices: { name: string; value: string }[] = [];
    if (focused?.name === 'market') {
      if (typed !== '') {
        const results = await searchByKeyphrases({ ctx, input: { keyphrases: [{ text: typed }] }, query: { limit: 5 } }).catch(() => []);
        choices = results.flatMap((e) => e.markets.map((m) => ({ name: truncate(m.question, 100), value: m.id })));
        if (choices.length === 0 && /^\d+$/.test(typed)) {
          const market = await findMarket({ ctx, input: { marketId: typed } }).catch(() => undefined);
          if (market) choices = [{ name: truncate(market.question, 100), value: market.id }];
        }
      }
    } else if (focused?.name === 'id') {
      const lower = typed.toLowerCase();
      choices = (await listSubscriptions({ ctx, input: {} }))
        .map((s) => ({ name: truncate(describeSubscription(s).replace(/^• /, ''), 100), value: s.subscriptionId }))
        .filter((c) => c.name.toLowerCase().includes(lower));
    }
    await respond(interaction, { type: CALLBACK.AUTOCOMPLETE_RESULT, data: { choices: choices.slice(0, MAX_CHOICES) } });
  }

  async function handleInteraction(interaction: RawInteraction): Promise<void> {
    const log = deps.logger.child({ discordInteractionId: interaction.id });
    try {
      const ctx = await serviceContext(interaction, log);
      switch (interaction.type) {
        case INTERACTION.APPLICATION_COMMAND:
          return await run(interaction, ctx, optionsToText(interaction.data?.name ?? '', interaction.data?.options));
        case INTERACTION.MESSAGE_COMPONENT:
          return await run(interaction, ctx, actionToText(interaction.data?.custom_id ?? ''));
        case INTERACTION.AUTOCOMPLETE:
          return await autocomplete(interaction, ctx);
        default:
          log.debug({ type: interaction.type }, 'discord interaction type ignored');
      }
    } catch (err) {
      // The one error boundary: anything the command layer did not answer (network, account lookup).
      log.error({ err }, 'discord interaction failed');
      if (interaction.type !== INTERACTION.AUTOCOMPLETE) await message(interaction, GENERIC_FAILURE, true).catch(() => {});
    }
  }

  async function registerCommands(): Promise<void> {
    const route = guildId ? Routes.applicationGuildCommands(applicationId, guildId) : Routes.applicationCommands(applicationId);
    await rest.put(route, { body: DISCORD_COMMANDS });
  }

  return {
    rest,
    registerCommands,
    handleInteraction,
    async start() {
      const { logger } = deps;
      // Commands first, through REST: a bot that cannot reach the gateway still has its commands.
      try {
        await registerCommands();
      } catch (err) {
        logger.error({ err }, 'discord: registering the slash commands failed');
      }
      client = new Client({ intents: [GatewayIntentBits.Guilds], ...(apiUrl ? { rest: { api: apiUrl } } : {}) });
      // The raw gateway packet is exactly the shape handleInteraction takes (as a webhook would deliver it).
      client.on('raw', (packet: { t?: string; d?: unknown }) => {
        if (packet.t === 'INTERACTION_CREATE') void handleInteraction(packet.d as RawInteraction);
      });
      client.once('clientReady', (c) => logger.info({ username: c.user.username }, 'discord bot started'));
      await client.login(token).catch((err: unknown) => logger.error({ err }, 'discord gateway login failed; slash commands will not be answered'));
    },
    async stop() {
      await client?.destroy();
      client = undefined;
    },
  };
}
