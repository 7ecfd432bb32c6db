import { DiscordAPIError, Routes, type REST } from 'discord.js';
import type { Logger } from '../../logger.js';
import type { BotReply } from '../commands/index.js';
import { cutLines, cutText } from '../../text/cut.js';
import { CALLBACK, EPHEMERAL, INTERACTION, loggable, type InteractionCallback, type RawInteraction } from './interaction.js';

const MAX_TEXT = 2000; // Discord's message limit
const MAX_ROWS = 5;
const MAX_BUTTONS_PER_ROW = 5;
const MAX_LABEL = 80;

/** A reply's buttons as action rows; their custom_id is the button protocol's data, already sized. */
function components(reply: BotReply) {
  if (!reply.buttons || reply.buttons.length === 0) return undefined;
  return reply.buttons.slice(0, MAX_ROWS).map((row) => ({
    type: 1,
    components: row.slice(0, MAX_BUTTONS_PER_ROW).map((b) => ({ type: 2, style: 2, label: cutText(b.label, MAX_LABEL), custom_id: b.action })),
  }));
}

/** The one answer to a command or a button click: `send(text, ephemeral, reply)`. */
export type Send = (text: string, ephemeral: boolean, reply?: BotReply) => Promise<void>;

export interface AnswererOptions {
  rest: REST;
  applicationId: string;
  interaction: RawInteraction;
  respond: InteractionCallback;
  /** Whether the answer is expected to be for the caller alone (the "thinking…" placeholder is then private too). */
  privateByDefault: boolean;
  deferAfterMs: number;
  placeholderRetryMs: number;
  log: Logger;
}

/**
 * Answers in one step when the work is done within deferAfterMs. Otherwise Discord is told
 * "thinking…" first (type 5, private when the answer is expected to be) so the interaction does
 * not expire, and the answer then replaces that placeholder through the interaction's webhook.
 */
export function answerer({ rest, applicationId, interaction, respond, privateByDefault, deferAfterMs, placeholderRetryMs, log }: AnswererOptions): Send {
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
    const data = { content: cutLines(text, MAX_TEXT), ...(rows ? { components: rows } : {}) };
    // A failed deferral left the interaction unanswered: answering in one step is the last chance.
    if (!deferral || !(await deferral)) {
      if (reply?.askNumber && interaction.type === INTERACTION.MESSAGE_COMPONENT) {
        const { action, title, label, placeholder = '62.5' } = reply.askNumber;
        // A modal's custom_id carries the draft back with the typed value (see runTypedAnswer).
        const input = { type: 4, custom_id: 'number', label: cutText(label, 45), style: 1, min_length: 1, max_length: 12, required: true, placeholder };
        return respond({ type: CALLBACK.MODAL, data: { custom_id: action, title: cutText(title, 45), components: [{ type: 1, components: [input] }] } });
      }
      const fromMessage = interaction.type === INTERACTION.MESSAGE_COMPONENT || interaction.type === INTERACTION.MODAL_SUBMIT;
      if (reply?.edit && fromMessage) {
        // The clicked message itself changes; without `components` Discord would keep the old buttons.
        return respond({ type: CALLBACK.UPDATE_MESSAGE, data: { ...data, components: rows ?? [] } });
      }
      return respond({ type: CALLBACK.CHANNEL_MESSAGE_WITH_SOURCE, data: { ...data, ...(ephemeral ? { flags: EPHEMERAL } : {}) } });
    }
    // Past the deferral an edit has become a new message in place of "thinking…" (below): Discord
    // cannot turn a deferred new message back into an update of the clicked one.
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
