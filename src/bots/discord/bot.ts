import { REST, Routes } from 'discord.js';
import type { Logger } from '../../logger.js';
import { findOrCreateChatAccount } from '../../services/accounts/index.js';
import type { ServiceContext, SystemDeps } from '../../services/context.js';
import { GENERIC_FAILURE, isPublicCommand, runButton, runTypedAnswer, runWithValues, STALE_BUTTON, type BotReply, type ChatInfo } from '../commands/index.js';
import { discordAllowed, REFUSED, REFUSED_DISCORD_DM } from '../allowlist.js';
import { answerer, type Send } from './answer.js';
import { autocomplete } from './autocomplete.js';
import { channelWebhooks, NeedsPermission } from './channel-webhook.js';
import { CALLBACK, callbackOverRest, INTERACTION, loggable, type InteractionCallback, type RawInteraction } from './interaction.js';
import { DISCORD_COMMANDS, valuesFromOptions } from './slash.js';

export { EPHEMERAL, type InteractionCallback, type RawInteraction } from './interaction.js';
export { NEED_WEBHOOK_PERMISSION } from './channel-webhook.js';

/** Commands that send to "this chat": in a server channel, that is the channel's Oddswatch webhook. */
const CHANNEL_COMMANDS = new Set(['alert', 'testalert']);
/** Discord drops an interaction that is not answered within 3 s; past this, answer "thinking…" first. */
export const DEFAULT_DEFER_AFTER_MS = 1500;

export interface DiscordBotOptions {
  token: string;
  applicationId: string;
  /** The REST base without /v10 (DISCORD_API_URL); a local fake in tests. */
  apiUrl?: string;
  /** Register the commands in this guild only (instant; global commands take a while to appear). */
  guildId?: string;
  /**
   * When a command or button has not finished after this long, the interaction is acknowledged
   * with a deferred answer and the result replaces it later (DEFAULT_DEFER_AFTER_MS by default).
   */
  deferAfterMs?: number;
  /** How long to wait before the one retry of an edit Discord answered 404 (see answer.ts). */
  placeholderRetryMs?: number;
  deps: SystemDeps;
}

export interface DiscordBot {
  rest: REST;
  /** Puts the slash commands (in DISCORD_GUILD_ID only, when set); `signal` gives up waiting. */
  registerCommands(signal?: AbortSignal): Promise<void>;
  /**
   * Answers one interaction. `callback` takes the first answer when the interaction came over
   * HTTP (it is the HTTP response); without it the first answer is POSTed to the REST callback
   * endpoint (gateway interactions). Later answers go through the interaction's webhook either way.
   */
  handleInteraction(interaction: RawInteraction, callback?: InteractionCallback): Promise<void>;
}

/**
 * Whether the answer is for the caller only: everything but help and search (the caller's own
 * rules, tokens, inbox), and every button click (a Pause pressed under a channel alert must not
 * post in the channel). Failures are private too (see `route`).
 */
const isPrivate = (interaction: RawInteraction): boolean =>
  interaction.type === INTERACTION.MESSAGE_COMPONENT || interaction.type === INTERACTION.MODAL_SUBMIT || !isPublicCommand(interaction.data?.name ?? '');

/** The Discord transport for the shared command layer: routes each interaction to the command layer and answers it. */
export function createDiscordBot({
  token,
  applicationId,
  apiUrl,
  guildId,
  deferAfterMs = DEFAULT_DEFER_AFTER_MS,
  placeholderRetryMs = 500,
  deps,
}: DiscordBotOptions): DiscordBot {
  const rest = new REST(apiUrl ? { api: apiUrl } : {}).setToken(token);
  const channelWebhook = channelWebhooks(rest, applicationId);

  async function serviceContext(interaction: RawInteraction, log: Logger): Promise<ServiceContext> {
    const discordUserId = interaction.member?.user?.id ?? interaction.user?.id;
    if (!discordUserId) throw new Error('interaction without a user');
    const account = await findOrCreateChatAccount(deps, { kind: 'discord', userId: discordUserId });
    return {
      database: deps.database,
      config: deps.config,
      logger: log,
      account,
    };
  }

  /** Runs a slash command (typed options straight to typed values) or a button (its data), and answers. */
  async function route(interaction: RawInteraction, ctx: ServiceContext, send: Send): Promise<void> {
    const inGuild = Boolean(interaction.guild_id);
    const userId = interaction.member?.user?.id ?? interaction.user?.id;
    const chat: ChatInfo = { kind: 'discord', chatId: interaction.channel_id ?? '', isPrivate: !inGuild, ...(userId ? { userId } : {}) };
    let reply: BotReply;
    const channelId = interaction.channel_id;
    if (interaction.type !== INTERACTION.APPLICATION_COMMAND && inGuild && channelId) {
      // An alert saved by a tap in a server channel goes to that channel's webhook, made only then.
      chat.deliveryChannel = { type: 'Discord', resolve: () => channelWebhook(channelId) };
    }
    if (interaction.type === INTERACTION.MODAL_SUBMIT) {
      const typed = interaction.data?.components?.[0]?.components?.[0]?.value ?? '';
      reply = (await runTypedAnswer(ctx, chat, [interaction.data?.custom_id ?? ''], typed)) ?? { text: STALE_BUTTON, failed: true };
    } else if (interaction.type === INTERACTION.MESSAGE_COMPONENT) {
      reply = await runButton(ctx, chat, interaction.data?.custom_id ?? '');
    } else {
      const name = interaction.data?.name ?? '';
      if (CHANNEL_COMMANDS.has(name) && !inGuild && interaction.channel_id) {
        // A DM has no webhooks: the bot posts there itself (the worker needs DISCORD_TOKEN for it).
        chat.channel = { type: 'Discord', settings: { discordChannelId: interaction.channel_id } };
      } else if (CHANNEL_COMMANDS.has(name) && interaction.channel_id) {
        try {
          // A test must try the webhook Discord has now, and leaves /alert here with it.
          chat.channel = await channelWebhook(interaction.channel_id, name === 'testalert');
        } catch (err) {
          if (err instanceof NeedsPermission) return send(err.message, true);
          throw err;
        }
      }
      reply = await runWithValues(ctx, chat, name, valuesFromOptions(interaction.data?.options));
    }
    // A secret or a personal list asked for in a guild: an ephemeral reply is already private to the caller.
    const secret = reply.privateMessage ?? (reply.private ? reply.text : undefined);
    if (secret) return send(secret, true, reply);
    await send(reply.text, reply.failed === true || isPrivate(interaction), reply);
  }

  async function handleInteraction(interaction: RawInteraction, callback?: InteractionCallback): Promise<void> {
    const log = deps.logger.child({ discordInteractionId: interaction.id });
    const answered = interaction.type !== INTERACTION.AUTOCOMPLETE && Object.values(INTERACTION).some((t) => t === interaction.type);
    if (!answered && interaction.type !== INTERACTION.AUTOCOMPLETE) {
      log.debug({ type: interaction.type }, 'discord interaction type ignored');
      return;
    }
    // Started before the account lookup: the 3 s Discord allows count from the interaction's arrival.
    const respond = callback ?? callbackOverRest(rest, interaction);
    const send = answered
      ? answerer({ rest, applicationId, interaction, respond, privateByDefault: isPrivate(interaction), deferAfterMs, placeholderRetryMs, log })
      : undefined;
    const userId = interaction.member?.user?.id ?? interaction.user?.id;
    if (userId && !discordAllowed(deps.config, { userId, guildId: interaction.guild_id })) {
      // Before the account lookup: nothing is stored. Discord wants every interaction answered, and
      // an ephemeral answer is seen by the caller alone, so it is not chat spam.
      log.info({ discordUserId: userId, guildId: interaction.guild_id }, 'discord: a user or server not in the BOT_ALLOWED_DISCORD_* lists was refused');
      if (!send) return await respond({ type: CALLBACK.AUTOCOMPLETE_RESULT, data: { choices: [] } }).catch(() => {});
      // A DM refused while servers are open: say where the bot does answer.
      const dmWhereServersOpen = !interaction.guild_id && deps.config.BOT_ALLOWED_DISCORD_GUILDS;
      return await send(dmWhereServersOpen ? REFUSED_DISCORD_DM : REFUSED, true).catch(() => {});
    }
    try {
      const ctx = await serviceContext(interaction, log);
      if (!send) return await autocomplete(interaction, ctx, respond);
      return await route(interaction, ctx, send);
    } catch (err) {
      // The one error boundary: anything the command layer did not answer (network, account lookup).
      log.error({ err: loggable(err) }, 'discord interaction failed');
      await send?.(GENERIC_FAILURE, true).catch(() => {});
    }
  }

  async function registerCommands(signal?: AbortSignal): Promise<void> {
    const route = guildId ? Routes.applicationGuildCommands(applicationId, guildId) : Routes.applicationCommands(applicationId);
    await rest.put(route, { body: DISCORD_COMMANDS, ...(signal ? { signal } : {}) });
  }

  return { rest, registerCommands, handleInteraction };
}
