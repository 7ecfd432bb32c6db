import { DiscordAPIError, HTTPError, Routes, type REST } from 'discord.js';
import type { RawOption } from './slash.js';

// Discord's interaction protocol as this bot uses it: the raw shapes and numbers, one place.

export const INTERACTION = { APPLICATION_COMMAND: 2, MESSAGE_COMPONENT: 3, AUTOCOMPLETE: 4 } as const;
export const CALLBACK = { CHANNEL_MESSAGE_WITH_SOURCE: 4, DEFERRED_CHANNEL_MESSAGE_WITH_SOURCE: 5, UPDATE_MESSAGE: 7, AUTOCOMPLETE_RESULT: 8 } as const;
export const EPHEMERAL = 64;

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

/** The first answer to an interaction (a callback body such as `{ type: 4, data }`). */
export type InteractionCallback = (body: object) => Promise<void>;

/**
 * discord.js errors carry the request URL and body, and the URL holds the interaction's token
 * (or a webhook's): logged without them.
 */
export function loggable(err: unknown): unknown {
  if (err instanceof DiscordAPIError || err instanceof HTTPError) {
    return { name: err.name, message: err.message, status: err.status, method: err.method, ...(err instanceof DiscordAPIError ? { code: err.code } : {}) };
  }
  return err;
}

/** The first answer of a gateway interaction: POSTed to its REST callback endpoint. */
export const callbackOverRest =
  (rest: REST, interaction: RawInteraction): InteractionCallback =>
  async (body) => {
    await rest.post(Routes.interactionCallback(interaction.id, interaction.token), { body, auth: false });
  };
