import { DiscordAPIError, HTTPError, REST, Routes } from 'discord.js';
import type { Logger } from '../../logger.js';
import { findOrCreateChatAccount } from '../../services/accounts/index.js';
import type { ServiceContext, SystemDeps } from '../../services/context.js';
import { findMarket, searchByKeyphrases } from '../../services/search/index.js';
import { listSubscriptions, type Channel } from '../../services/subscriptions/index.js';
import { actionToText, GENERIC_FAILURE, runCommand, type BotReply, type ChatInfo } from '../commands/index.js';
import { describeSubscription } from '../commands/shared.js';
import { DISCORD_COMMANDS, optionsToText, type RawOption } from './commands.js';

export const INTERACTION = { APPLICATION_COMMAND: 2, MESSAGE_COMPONENT: 3, AUTOCOMPLETE: 4 } as const;
export const CALLBACK = { CHANNEL_MESSAGE_WITH_SOURCE: 4, DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: 5, AUTOCOMPLETE_RESULT: 8 } as const;
export const EPHEMERAL = 64;
export const NEED_WEBHOOK_PERMISSION = 'I need the Manage Webhooks permission in this channel to post alerts here';

/** Replies only the caller should see. Button clicks are answered privately too (see `isPrivate`). */
const EPHEMERAL_COMMANDS = new Set(['token', 'alerts', 'inbox', 'watchlists', 'testalert', 'enable']);
/** Commands that send to "this chat": in a server channel, that is the channel's Oddswatch webhook. */
const CHANNEL_COMMANDS = new Set(['alert', 'testalert']);
/** Discord drops an interaction that is not answered within 3 s; past this, answer "thinking…" first. */
export const DEFAULT_DEFER_AFTER_MS = 1500;
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
  /**
   * When a command or button has not finished after this long, the interaction is acknowledged
   * with a deferred answer and the result replaces it later (DEFAULT_DEFER_AFTER_MS by default).
   */
  deferAfterMs?: number;
  /** How long to wait before the one retry of an edit Discord answered 404 (see afterPlaceholder). */
  placeholderRetryMs?: number;
  deps: SystemDeps;
}

/** The first answer to an interaction (a callback body such as `{ type: 4, data }`). */
export type InteractionCallback = (body: object) => Promise<void>;

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

/**
 * Whether the answer is for the caller only: the commands about the caller's own data, and every
 * button click (a Pause or Delete pressed under a channel alert must not post in the channel).
 */
const isPrivate = (interaction: RawInteraction): boolean =>
  interaction.type === INTERACTION.MESSAGE_COMPONENT || EPHEMERAL_COMMANDS.has(interaction.data?.name ?? '');

/**
 * discord.js errors carry the request URL and body, and the URL holds the interaction's token
 * (or a webhook's): logged without them.
 */
function loggable(err: unknown): unknown {
  if (err instanceof DiscordAPIError || err instanceof HTTPError) {
    return { name: err.name, message: err.message, status: err.status, method: err.method, ...(err instanceof DiscordAPIError ? { code: err.code } : {}) };
  }
  return err;
}

/** The Discord transport for the shared command layer: slash commands over REST, answered over REST. */
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
  const webhooks = new Map<string, string>(); // channel id → webhook URL

  const callbackOverRest =
    (interaction: RawInteraction): InteractionCallback =>
    async (body) => {
      await rest.post(Routes.interactionCallback(interaction.id, interaction.token), { body, auth: false });
    };

  /** The one answer to a command or a button click: `send(text, ephemeral, reply)`. */
  type Send = (text: string, ephemeral: boolean, reply?: BotReply) => Promise<void>;

  /**
   * Answers in one step when the work is done within deferAfterMs. Otherwise Discord is told
   * "thinking…" first (type 5, private when the answer is expected to be) so the interaction does
   * not expire, and the answer then replaces that placeholder through the interaction's webhook.
   */
  function answerer(interaction: RawInteraction, respond: InteractionCallback, privateByDefault: boolean, log: Logger): Send {
    let deferral: Promise<boolean> | undefined;
    const timer = setTimeout(() => {
      const body = { type: CALLBACK.DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE, ...(privateByDefault ? { data: { flags: EPHEMERAL } } : {}) };
      deferral = respond(body).then(
        () => true,
        (err: unknown) => {
          log.warn({ err: loggable(err) }, 'discord: deferring the answer failed');
          return false;
        },
      );
    }, deferAfterMs);
    // Over HTTP the placeholder is our response body: an edit can reach Discord before it has
    // stored it, and is then answered 404 (Unknown Webhook or Message). Once more, a moment later.
    async function afterPlaceholder(call: () => Promise<unknown>): Promise<void> {
      try {
        await call();
      } catch (err) {
        if (!(err instanceof DiscordAPIError && err.status === 404)) throw err;
        await new Promise((resolve) => setTimeout(resolve, placeholderRetryMs));
        await call();
      }
    }
    return async (text, ephemeral, reply) => {
      clearTimeout(timer);
      const rows = reply ? components(reply) : undefined;
      const data = { content: truncate(text, MAX_TEXT), ...(rows ? { components: rows } : {}) };
      // A failed deferral left the interaction unanswered: answering in one step is the last chance.
      if (!deferral || !(await deferral)) {
        return respond({ type: CALLBACK.CHANNEL_MESSAGE_WITH_SOURCE, data: { ...data, ...(ephemeral ? { flags: EPHEMERAL } : {}) } });
      }
      if (ephemeral && !privateByDefault) {
        // The placeholder is public and an edit cannot make it private: answer in a private
        // follow-up and take the placeholder away.
        await afterPlaceholder(() => rest.post(Routes.webhook(applicationId, interaction.token), { body: { ...data, flags: EPHEMERAL }, auth: false }));
        await afterPlaceholder(() => rest.delete(Routes.webhookMessage(applicationId, interaction.token, '@original'), { auth: false }));
        return;
      }
      await afterPlaceholder(() => rest.patch(Routes.webhookMessage(applicationId, interaction.token, '@original'), { body: data, auth: false }));
    };
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
    };
  }

  /**
   * A webhook in this guild channel that alerts post to: made once, then remembered. `fresh` asks
   * Discord again instead of trusting the memory: a webhook deleted in Discord is then made anew.
   */
  async function channelWebhook(channelId: string, fresh = false): Promise<Channel> {
    let url = fresh ? undefined : webhooks.get(channelId);
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

  async function run(interaction: RawInteraction, ctx: ServiceContext, text: string, send: Send): Promise<void> {
    const name = text.split(' ')[0]!;
    const inGuild = Boolean(interaction.guild_id);
    const chat: ChatInfo = { kind: 'discord', chatId: interaction.channel_id ?? '', isPrivate: !inGuild };
    if (CHANNEL_COMMANDS.has(name) && inGuild && interaction.channel_id) {
      try {
        // A test must try the webhook Discord has now, and leaves /alert here with it.
        chat.channel = await channelWebhook(interaction.channel_id, name === 'testalert');
      } catch (err) {
        if (err instanceof NeedsPermission) return send(err.message, true);
        throw err;
      }
    }
    const reply = await runCommand(ctx, chat, text);
    // A secret asked for in a guild: an ephemeral reply is already private to the caller.
    const secret = reply.privateMessage ?? (reply.private ? reply.text : undefined);
    if (secret) return send(secret, true);
    await send(reply.text, isPrivate(interaction), reply);
  }

  async function autocomplete(interaction: RawInteraction, ctx: ServiceContext, respond: InteractionCallback): Promise<void> {
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
    await respond({ type: CALLBACK.AUTOCOMPLETE_RESULT, data: { choices: choices.slice(0, MAX_CHOICES) } });
  }

  async function handleInteraction(interaction: RawInteraction, callback?: InteractionCallback): Promise<void> {
    const log = deps.logger.child({ discordInteractionId: interaction.id });
    const answered = interaction.type === INTERACTION.APPLICATION_COMMAND || interaction.type === INTERACTION.MESSAGE_COMPONENT;
    if (!answered && interaction.type !== INTERACTION.AUTOCOMPLETE) {
      log.debug({ type: interaction.type }, 'discord interaction type ignored');
      return;
    }
    // Started before the account lookup: the 3 s Discord allows count from the interaction's arrival.
    const respond = callback ?? callbackOverRest(interaction);
    const send = answered ? answerer(interaction, respond, isPrivate(interaction), log) : undefined;
    try {
      const ctx = await serviceContext(interaction, log);
      if (!send) return await autocomplete(interaction, ctx, respond);
      const text =
        interaction.type === INTERACTION.APPLICATION_COMMAND
          ? optionsToText(interaction.data?.name ?? '', interaction.data?.options)
          : actionToText(interaction.data?.custom_id ?? '');
      return await run(interaction, ctx, text, send);
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

  return {
    rest,
    registerCommands,
    handleInteraction,
  };
}
