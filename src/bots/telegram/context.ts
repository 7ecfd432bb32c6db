import type { Context } from 'grammy';
import type { Logger } from '../../logger.js';
import type { ServiceContext } from '../../services/context.js';
import type { ChatInfo } from '../commands/index.js';

/** grammY's context with what our middleware adds for every update. */
export interface OddsContextFlavor {
  services: ServiceContext;
  log: Logger;
}
export type OddsContext = Context & OddsContextFlavor;

export function chatInfo(ctx: Context): ChatInfo | undefined {
  const chat = ctx.chat;
  if (!chat) return undefined;
  return { kind: 'telegram', chatId: chat.id, isPrivate: chat.type === 'private', ...(ctx.from ? { userId: String(ctx.from.id) } : {}) };
}
